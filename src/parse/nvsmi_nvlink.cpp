#include "parse/nvsmi_nvlink.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "parse/nvsmi_values.h"
#include "parse/proc_text.h"

namespace gpudoctor {
namespace {
namespace nvsmi_nvlink_detail {

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  }
  return true;
}

bool ContainsNoCase(std::string_view s, std::string_view word) {
  for (std::size_t i = 0; i + word.size() <= s.size(); ++i) {
    if (StartsWithNoCase(s.substr(i), word)) return true;
  }
  return false;
}

// "N: REST" after `keyword` ("GPU", "Link"): N and REST.
std::optional<std::pair<unsigned, std::string_view>> Numbered(std::string_view line,
                                                               std::string_view keyword) {
  if (line.rfind(keyword, 0) != 0 || line.size() <= keyword.size() + 2 || line[keyword.size()] != ' ')
    return std::nullopt;
  std::string_view rest = line.substr(keyword.size() + 1);
  std::size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto n = ParseUnsigned(rest.substr(0, colon));
  if (!n || *n > 1u << 20) return std::nullopt;
  return std::pair{static_cast<unsigned>(*n), Trim(rest.substr(colon + 1))};
}

enum class LineKind { kGpu, kLink, kAllInactive, kNoLinks, kOther };

LineKind Classify(std::string_view line) {
  if (auto gpu = Numbered(line, "GPU"); gpu && !gpu->second.empty()) return LineKind::kGpu;
  if (Numbered(line, "Link")) return LineKind::kLink;
  if (StartsWithNoCase(line, "NVML: Unable to retrieve NVLink information")) {
    return ContainsNoCase(line, "all links are inactive") ? LineKind::kAllInactive : LineKind::kNoLinks;
  }
  if (ContainsNoCase(line, "Nvlink queries are not supported")) return LineKind::kNoLinks;
  return LineKind::kOther;
}

// "NVIDIA H100 80GB HBM3 (UUID: GPU-...)" -> name, uuid.
void SetNameAndUuid(std::string_view text, GpuStatus& g) {
  std::size_t open = text.rfind(" (UUID: ");
  if (open != std::string_view::npos && text.back() == ')') {
    g.uuid = std::string(Trim(text.substr(open + 8, text.size() - open - 9)));
    text = text.substr(0, open);
  }
  g.name = std::string(Trim(text));
}

NvLinkStatus& LinkOf(GpuStatus& g, unsigned link) {
  for (NvLinkStatus& l : g.nvlinks) {
    if (l.link == link) return l;
  }
  NvLinkStatus l;
  l.link = link;
  g.nvlinks.push_back(l);
  return g.nvlinks.back();
}

// "26.562 GB/s", "<inactive>", "Replay Errors: 0", ...: false when none.
bool ReadLinkValue(std::string_view value, NvLinkStatus& l) {
  if (value == "<inactive>") {
    l.active = false;
    return true;
  }
  if (auto gbps = nvsmi::ParseQuantity(value, "GB/s"); gbps && *gbps >= 0) {
    l.active = true;
    l.speed_gb_per_s = *gbps;
    return true;
  }
  static constexpr std::pair<std::string_view, std::optional<std::int64_t> NvLinkStatus::*> kCounters[] = {
      {"Replay Errors:", &NvLinkStatus::replay_errors},
      {"Recovery Errors:", &NvLinkStatus::recovery_errors},
      // nvidia-smi prints one CRC count: the flit CRC errors NVML counts.
      {"CRC Errors:", &NvLinkStatus::crc_flit_errors},
  };
  for (const auto& [label, field] : kCounters) {
    if (value.rfind(label, 0) != 0) continue;
    auto n = nvsmi::ParseInteger(Trim(value.substr(label.size())));
    if (!n || *n < 0) return false;
    l.*field = *n;
    return true;
  }
  return false;
}

}  // namespace nvsmi_nvlink_detail
}  // namespace

Result<SystemStatus> ParseNvidiaSmiNvlink(std::string_view text, std::string_view source_name,
                                          std::vector<std::string>* notes) {
  using namespace nvsmi_nvlink_detail;
  SystemStatus status;
  status.nvml_loaded = true;
  std::size_t skipped = 0;
  for (std::string_view raw : SplitLines(text)) {
    std::string_view line = Trim(raw);
    if (line.empty()) continue;
    GpuStatus* gpu = status.gpus.empty() ? nullptr : &status.gpus.back();
    switch (Classify(line)) {
      case LineKind::kGpu: {
        auto [index, rest] = *Numbered(line, "GPU");
        GpuStatus g;
        g.index = index;
        SetNameAndUuid(rest, g);
        status.gpus.push_back(std::move(g));
        break;
      }
      case LineKind::kLink: {
        auto [link, value] = *Numbered(line, "Link");
        NvLinkStatus probe;
        if (gpu && ReadLinkValue(value, probe)) {
          NvLinkStatus& l = LinkOf(*gpu, link);
          ReadLinkValue(value, l);
        } else {
          ++skipped;
        }
        break;
      }
      case LineKind::kAllInactive:
        if (gpu) gpu->nvlinks_all_inactive = true; else ++skipped;
        break;
      case LineKind::kNoLinks:
        if (!gpu) ++skipped;
        break;
      case LineKind::kOther:
        ++skipped;
        break;
    }
  }
  if (status.gpus.empty()) {
    return Error{ErrorCode::kCorrupt,
                 std::string(source_name) + ": not nvidia-smi nvlink output: no GPU line"};
  }
  if (skipped > 0 && notes) {
    notes->push_back(std::to_string(skipped) + (skipped == 1 ? " line" : " lines") +
                     " not of nvidia-smi nvlink's shape skipped");
  }
  return status;
}

bool LooksLikeNvidiaSmiNvlink(std::string_view head) {
  using namespace nvsmi_nvlink_detail;
  bool gpu_seen = false;
  int lines = 0;
  for (std::string_view raw : SplitLines(head)) {
    std::string_view line = Trim(raw);
    if (line.empty()) continue;
    if (++lines > 3) return false;
    if (!gpu_seen && line.rfind("$ ", 0) == 0 && lines == 1) continue;  // a pasted prompt
    LineKind kind = Classify(line);
    if (!gpu_seen) {
      if (kind != LineKind::kGpu) return false;
      gpu_seen = true;
      continue;
    }
    return kind == LineKind::kLink || kind == LineKind::kAllInactive || kind == LineKind::kNoLinks;
  }
  return false;
}

}  // namespace gpudoctor
