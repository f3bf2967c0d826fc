#include "analyze/nvlink_merge.h"

#include <algorithm>

namespace gpudoctor {
namespace {
namespace nvlink_merge_detail {

bool RealUuid(const std::string& uuid) {
  return !uuid.empty() &&
         uuid.find_first_not_of("GPU-0", 0) != std::string::npos;  // masked: GPU-00000000-0000-...
}

template <typename T>
void Take(const std::optional<T>& from, std::optional<T>& into) {
  if (from) into = from;
}

}  // namespace nvlink_merge_detail
}  // namespace

bool SameNvlinkGpu(const GpuStatus& a, const GpuStatus& b) {
  using nvlink_merge_detail::RealUuid;
  if (RealUuid(a.uuid) && RealUuid(b.uuid)) return a.uuid == b.uuid;
  return a.index == b.index;
}

void MergeNvlinksOf(const GpuStatus& from, GpuStatus& into) {
  using nvlink_merge_detail::Take;
  for (const NvLinkStatus& l : from.nvlinks) {
    auto it = std::find_if(into.nvlinks.begin(), into.nvlinks.end(),
                           [&](const NvLinkStatus& x) { return x.link == l.link; });
    if (it == into.nvlinks.end()) {
      into.nvlinks.push_back(l);
      continue;
    }
    Take(l.active, it->active);
    Take(l.speed_gb_per_s, it->speed_gb_per_s);
    Take(l.crc_flit_errors, it->crc_flit_errors);
    Take(l.replay_errors, it->replay_errors);
    Take(l.recovery_errors, it->recovery_errors);
  }
  std::sort(into.nvlinks.begin(), into.nvlinks.end(),
            [](const NvLinkStatus& a, const NvLinkStatus& b) { return a.link < b.link; });
  into.nvlinks_all_inactive = into.nvlinks_all_inactive || from.nvlinks_all_inactive;
  if (into.name.empty()) into.name = from.name;
  if (into.uuid.empty()) into.uuid = from.uuid;
}

SystemStatus CombineNvlinkOutputs(const std::vector<SystemStatus>& outputs) {
  SystemStatus combined;
  combined.nvml_loaded = true;
  for (const SystemStatus& out : outputs) {
    for (const GpuStatus& g : out.gpus) {
      auto it = std::find_if(combined.gpus.begin(), combined.gpus.end(),
                             [&](const GpuStatus& x) { return SameNvlinkGpu(x, g); });
      if (it == combined.gpus.end()) {
        combined.gpus.push_back(g);
      } else {
        MergeNvlinksOf(g, *it);
      }
    }
  }
  return combined;
}

std::vector<GpuStatus> MergeNvlinksInto(const std::vector<GpuStatus>& links, SystemStatus& reading) {
  std::vector<GpuStatus> unmatched;
  for (const GpuStatus& g : links) {
    auto it = std::find_if(reading.gpus.begin(), reading.gpus.end(),
                           [&](const GpuStatus& x) { return SameNvlinkGpu(x, g); });
    if (it == reading.gpus.end()) {
      unmatched.push_back(g);
    } else {
      MergeNvlinksOf(g, *it);
    }
  }
  return unmatched;
}

}  // namespace gpudoctor
