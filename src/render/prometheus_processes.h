// The per-process series of /metrics: gpudoctor_process_gpu_memory_bytes,
// gpudoctor_process_sm_utilization_ratio and
// gpudoctor_process_memory_utilization_ratio, with the GPU's labels plus pid,
// process, container (the runtime's 12-digit id), pod and namespace.
#pragma once

#include <vector>

#include "render/exposition.h"

namespace gpudoctor {

// At most `n` of the GPU's processes, the most GPU memory first (a process
// whose memory the driver does not report last), ties by pid. Pure.
std::vector<const GpuProcess*> TopProcessesByMemory(const GpuStatus& g, unsigned n);

// The three families for every GPU of the latest sample, `top_n` processes
// per GPU; nothing when top_n is 0.
void WriteProcessMetrics(const AgentLiveSnapshot& s, unsigned top_n, Exposition& e);

}  // namespace gpudoctor
