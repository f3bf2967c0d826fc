// Per-process utilisation: each compute process's share of the SMs and of
// the memory interface over the driver's last sample period.
// nvmlDeviceGetProcessesUtilizationInfo (nvml.h 12.4, R550) first, falling
// back to nvmlDeviceGetProcessUtilization where it is missing or answers
// FUNCTION_NOT_FOUND, NOT_SUPPORTED, DEPRECATED or ARGUMENT_VERSION_MISMATCH.
// Both list only processes with non-zero utilisation, so a listed compute
// process without a sample used 0 %; NOT_FOUND (no sample at all) means 0 %
// for every one.
#pragma once

#include <cstdint>
#include <vector>

#include "core/gpu_status.h"
#include "nvml/nvml_api.h"

namespace gpudoctor {

struct ProcessUtilizationSample {
  std::uint32_t pid = 0;
  unsigned long long time_us = 0;
  unsigned sm_percent = 0;
  unsigned memory_percent = 0;
};

// Sets sm_util_percent and memory_util_percent of every process from the
// samples: the latest sample of its pid (values above 100 clamped), 0 when
// it has none or only samples more than 5 s older than the newest of all.
void ApplyProcessUtilization(const std::vector<ProcessUtilizationSample>& samples,
                             std::vector<GpuProcess>& processes);

namespace nvml_detail {
class Reader;
// Reads the samples and applies them to g.processes (which must be set).
void ReadProcessUtilization(Reader& r, nvmlDevice_t dev, GpuStatus& g);
}  // namespace nvml_detail

}  // namespace gpudoctor
