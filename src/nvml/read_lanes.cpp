#include "nvml/read_lanes.h"

namespace gpudoctor {

std::size_t NextReadLanes(std::size_t lanes, std::chrono::steady_clock::duration took,
                          std::size_t gpus_read, std::size_t gpu_count,
                          std::chrono::steady_clock::duration slow) {
  if (gpu_count < 2) return 1;
  if (gpus_read < 2) return lanes;  // one GPU's read says nothing about turns
  if (lanes <= 1) return took > slow ? gpu_count : 1;
  // In parallel, `took` is about the slowest GPU's read; in turn it would be
  // at most gpus_read times that.
  return took * static_cast<long>(gpus_read) < slow ? 1 : gpu_count;
}

}  // namespace gpudoctor
