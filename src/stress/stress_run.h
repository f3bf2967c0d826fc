// Runs the planned stress tests on the chosen GPUs: each test on all of them
// at once (one thread per GPU), hbm and memory first and the burn last, while
// the calling thread samples NVML every 100 ms and collects Xid events.
// Returns what was measured and the samples; never changes a GPU setting.
#pragma once

#include <iosfwd>
#include <memory>
#include <vector>

#include "core/active_run.h"
#include "core/gpu_status.h"
#include "cuda/cuda_gpu.h"
#include "nvml/nvml_session.h"
#include "nvml/nvml_xid_events.h"
#include "stress/stress_plan.h"

namespace gpudoctor {

inline constexpr std::chrono::milliseconds kStressSampleInterval{100};

// A GPU to test: as NVML saw it before the run, the CUDA device with the
// same bus id, and its NVLink links (p2p_expectation.h: ActiveNvLinksOf).
struct StressTarget {
  GpuStatus nvml;
  CudaDeviceInfo cuda;
  std::vector<ActiveNvLink> nvlinks;
};

struct StressSample {
  SystemStatus status;
  WallTime time;
};

struct StressRunResult {
  ActiveRun run;
  std::vector<StressSample> samples;  // before, every 100 ms during, after
};

// `xids` may be null (no Xid events then). Progress lines go to `progress`.
StressRunResult RunStress(const StressPlan& plan, std::shared_ptr<const CudaLibrary> lib,
                          const std::vector<StressTarget>& targets, NvmlSession& sampler,
                          NvmlXidWatcher* xids, std::ostream& progress);

}  // namespace gpudoctor
