#include "render/exposition.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "core/gpu_key.h"

namespace gpudoctor {

std::string ExpositionNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

std::string PromLabel(std::string_view name, std::string_view value) {
  return fmt::format("{}=\"{}\"", name, EscapeLabelValue(value));
}

std::string JoinLabels(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "," + b;
}

std::string GpuLabelText(const MetricGpuLabels& l) {
  return PromLabel("gpu", std::to_string(l.index)) + "," + PromLabel("uuid", l.uuid) + "," +
         PromLabel("pci_bus_id", l.pci_bus_id) + "," + PromLabel("model", l.model);
}

const MetricGpuLabels& LabelsOf(const AgentLiveSnapshot& s, const GpuStatus& g,
                                MetricGpuLabels& scratch) {
  auto known = s.gpus.find(GpuKeyOf(g));
  if (known != s.gpus.end() && !known->second.labels.uuid.empty()) return known->second.labels;
  scratch = MetricGpuLabels{g.index, g.uuid, g.pci_bus_id, g.name};
  return scratch;
}

const GpuProcess* SinglePodOf(const GpuStatus& g, std::optional<unsigned> gpu_instance_id) {
  if (!g.processes) return nullptr;
  const GpuProcess* first = nullptr;
  for (const auto& p : *g.processes) {
    if (gpu_instance_id && p.gpu_instance_id != gpu_instance_id) continue;
    if (first == nullptr) first = &p;
    if (p.pod_uid != first->pod_uid) return nullptr;
  }
  if (first == nullptr || first->pod_uid.empty() || first->pod_name.empty()) return nullptr;
  return first;
}

const std::string& ContainerLabelOf(const GpuProcess& p) {
  return p.container_name.empty() ? p.container_id : p.container_name;
}

void Exposition::Family(std::string_view name, std::string_view type, std::string_view help) {
  name_ = name;
  std::string_view meta = name;
  if (format_ == ExpositionFormat::kOpenMetrics && type == "counter") {
    // OpenMetrics names a counter family without its _total suffix, and a
    // counter's samples must have it: dcgm-exporter's counters
    // (DCGM_FI_DEV_POWER_VIOLATION, ...) lack it, so they go out as
    // "unknown", whose sample has the family's own name.
    if (meta.ends_with("_total")) {
      meta.remove_suffix(6);
    } else {
      type = "unknown";
    }
  }
  fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", meta, help, meta, type);
}

void Exposition::Sample(const std::string& labels, double value, std::string_view suffix) {
  fmt::format_to(std::back_inserter(out_), "{}{}{}{}{} {}\n", name_, suffix,
                 labels.empty() ? "" : "{", labels, labels.empty() ? "" : "}",
                 ExpositionNumber(value));
}

std::string Exposition::Finish() {
  if (format_ == ExpositionFormat::kOpenMetrics) out_ += "# EOF\n";
  return std::move(out_);
}

}  // namespace gpudoctor
