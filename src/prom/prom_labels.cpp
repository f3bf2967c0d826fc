#include "prom/prom_labels.h"

#include <charconv>

#include "core/gpu_key.h"
#include "core/gpu_status.h"

namespace gpudoctor {
namespace {

// Names as string_views: a look-up by `const char*` measures it at every
// comparison.
const std::string& FirstLabel(const PromLabels& labels,
                              std::initializer_list<std::string_view> names) {
  static const std::string kNone;
  for (std::string_view n : names) {
    auto it = labels.find(n);
    if (it != labels.end() && !it->second.empty()) return it->second;
  }
  return kNone;
}

}  // namespace

std::string NodeOfLabels(const PromLabels& labels) {
  return FirstLabel(labels, {"Hostname", "hostname", "node", "nodename", "instance"});
}

std::string GpuLabels::FindingKey() const {
  if (!pci_bus_id.empty()) return pci_bus_id;
  unsigned index = 0;
  auto [end, ec] = std::from_chars(gpu.data(), gpu.data() + gpu.size(), index);
  if (!gpu.empty() && ec == std::errc() && end == gpu.data() + gpu.size()) return GpuKeyOf("", index);
  return "";
}

std::string GpuLabels::Key() const {
  if (std::string key = FindingKey(); !key.empty()) return key;
  if (!gpu.empty()) return "gpu " + gpu;
  return uuid;
}

bool IsMigInstanceSeries(const PromLabels& labels) {
  for (std::string_view name : {"GPU_I_ID", "gpu_instance"}) {
    auto it = labels.find(name);
    if (it != labels.end() && !it->second.empty()) return true;
  }
  return false;
}

GpuLabels GpuOfLabels(const PromLabels& labels) {
  GpuLabels g;
  g.pci_bus_id = NormalizePciBusId(FirstLabel(labels, {"pci_bus_id"}));
  g.gpu = FirstLabel(labels, {"gpu"});
  // dcgm-exporter's device label ("nvidia3") names the index too.
  if (const std::string& device = FirstLabel(labels, {"device"});
      g.gpu.empty() && device.starts_with("nvidia") && device.size() > 6 &&
      device.find_first_not_of("0123456789", 6) == std::string::npos) {
    g.gpu = device.substr(6);
  }
  g.uuid = FirstLabel(labels, {"uuid", "UUID"});
  g.model = FirstLabel(labels, {"model", "modelName"});
  return g;
}

Result<std::string> MatchersOf(const std::string& match) {
  std::string m = match;
  while (!m.empty() && m.front() == ' ') m.erase(m.begin());
  while (!m.empty() && m.back() == ' ') m.pop_back();
  if (m.empty()) return std::string();
  if (m.size() < 2 || m.front() != '{' || m.back() != '}' ||
      m.find_first_of("{}", 1) != m.size() - 1) {
    return Error{ErrorCode::kInvalid,
                 "--match " + match + ": expected one label selector such as '{job=\"gpudoctor\"}'"};
  }
  std::string inner = m.substr(1, m.size() - 2);
  if (inner.find("__name__") != std::string::npos) {
    return Error{ErrorCode::kInvalid, "--match " + match + ": select by labels, not by __name__"};
  }
  return inner;
}

std::string Selector(std::string_view name, const std::string& matchers, std::string_view extra) {
  std::string inner = matchers;
  if (!extra.empty()) inner = inner.empty() ? std::string(extra) : std::string(extra) + "," + inner;
  return std::string(name) + (inner.empty() ? "" : "{" + inner + "}");
}

std::string SelectorOfNames(const std::string& names_regex, const std::string& matchers) {
  return "{__name__=~\"" + names_regex + "\"" + (matchers.empty() ? "" : "," + matchers) + "}";
}

}  // namespace gpudoctor
