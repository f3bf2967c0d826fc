#include "collect/dropped_gpus.h"

#include <algorithm>
#include <set>

#include "core/gpu_status.h"

namespace gpudoctor {

std::vector<DroppedGpu> FindDroppedGpus(const std::vector<PciDevice>& sysfs_gpus,
                                        const std::vector<std::string>& nvml_bus_ids,
                                        std::optional<unsigned> expected_count) {
  std::set<std::string> in_nvml;
  for (const auto& id : nvml_bus_ids) {
    auto normal = NormalizePciBusId(id);
    in_nvml.insert(normal.empty() ? id : normal);
  }
  std::vector<DroppedGpu> out;
  unsigned answering = 0;
  for (const auto& gpu : sysfs_gpus) {
    if (gpu.kind != PciFunctionKind::kGpu) continue;
    if (!gpu.answers) {
      out.push_back(
          DroppedGpu{gpu.bus_id, DropReason::kNoAnswer,
                     "GPU " + gpu.bus_id + " does not answer on the bus: " + gpu.no_answer_detail});
      continue;
    }
    ++answering;
    if (!in_nvml.count(gpu.bus_id)) {
      out.push_back(
          DroppedGpu{gpu.bus_id, DropReason::kNotInNvml,
                     "GPU " + gpu.bus_id + " is on the PCI bus but NVML does not list it"});
    }
  }
  if (expected_count) {
    const auto seen = std::max<std::size_t>(in_nvml.size(), answering);
    if (seen < *expected_count) {
      out.push_back(DroppedGpu{
          "", DropReason::kBelowExpectedCount,
          std::to_string(seen) + " GPUs seen, " + std::to_string(*expected_count) + " expected"});
    }
  }
  return out;
}

}  // namespace gpudoctor
