// How `analyze` joins `nvidia-smi nvlink -s` / `-e` output (which names GPUs
// by index and UUID only) to the other readings of the same machine. Pure.
#pragma once

#include <vector>

#include "core/gpu_status.h"

namespace gpudoctor {

// True when `a` and `b` are the same GPU: by UUID where both have a real
// one (not empty, not a collector's all-zero mask), else by index.
bool SameNvlinkGpu(const GpuStatus& a, const GpuStatus& b);

// Adds the links of `from` (nvlink output) to `into`: a link already there
// gets the fields `from` has (state, speed, counters), a new one is added;
// nvlinks_all_inactive carries over. `into`'s other fields stay.
void MergeNvlinksOf(const GpuStatus& from, GpuStatus& into);

// Several nvlink outputs of one machine (-s and -e) as one: GPUs matched
// with SameNvlinkGpu, in the order first seen.
SystemStatus CombineNvlinkOutputs(const std::vector<SystemStatus>& outputs);

// Merges each GPU of `links` into the GPU of `reading` that is the same
// (SameNvlinkGpu); returns the GPUs that matched none, in order.
std::vector<GpuStatus> MergeNvlinksInto(const std::vector<GpuStatus>& links, SystemStatus& reading);

}  // namespace gpudoctor
