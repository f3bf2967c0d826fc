// Per-process utilisation: nvmlDeviceGetProcessesUtilizationInfo (R550 on)
// and nvmlDeviceGetProcessUtilization. A sample for each scenario process
// with a non-zero "sm_util_percent" or "memory_util_percent" (as the driver
// lists only processes that used the GPU), stamped with the call's time;
// NOT_FOUND when there is none. The "processes" faults apply.
#include <chrono>
#include <vector>

#include "fake_state.h"

namespace {
namespace fake_process_utilization {

struct Sample {
  unsigned pid;
  unsigned sm;
  unsigned memory;
};

std::vector<Sample> SamplesOf(const gpudoctor::GpuStatus& g) {
  std::vector<Sample> out;
  if (!g.processes) return out;
  for (const auto& p : *g.processes) {
    const auto sm = static_cast<unsigned>(p.sm_util_percent.value_or(0));
    const auto memory = static_cast<unsigned>(p.memory_util_percent.value_or(0));
    if (sm == 0 && memory == 0) continue;
    out.push_back({p.pid, sm, memory});
  }
  return out;
}

unsigned long long NowUs() {
  using namespace std::chrono;
  return static_cast<unsigned long long>(
      duration_cast<microseconds>(system_clock::now().time_since_epoch()).count());
}

}  // namespace fake_process_utilization
}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device,
                                                   nvmlProcessesUtilizationInfo_v1_t* info) {
  return fake::WithGpu(__func__, device, {"processes"}, [&](const fake::GpuCall& c) -> nvmlReturn_t {
    if (info == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (info->version != nvmlProcessesUtilizationInfo_v1) {
      return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    if (!c.now.processes) return NVML_ERROR_NOT_SUPPORTED;
    const auto samples = fake_process_utilization::SamplesOf(c.now);
    if (samples.empty()) return NVML_ERROR_NOT_FOUND;
    if (info->procUtilArray == nullptr || info->processSamplesCount < samples.size()) {
      info->processSamplesCount = static_cast<unsigned>(samples.size());
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    const unsigned long long now = fake_process_utilization::NowUs();
    for (std::size_t i = 0; i < samples.size(); ++i) {
      nvmlProcessUtilizationInfo_v1_t& out = info->procUtilArray[i];
      out = {};
      out.timeStamp = now;
      out.pid = samples[i].pid;
      out.smUtil = samples[i].sm;
      out.memUtil = samples[i].memory;
    }
    info->processSamplesCount = static_cast<unsigned>(samples.size());
    info->lastSeenTimeStamp = now;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                             nvmlProcessUtilizationSample_t* utilization,
                                             unsigned int* processSamplesCount,
                                             unsigned long long lastSeenTimeStamp) {
  (void)lastSeenTimeStamp;
  return fake::WithGpu(__func__, device, {"processes"}, [&](const fake::GpuCall& c) -> nvmlReturn_t {
    if (processSamplesCount == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (!c.now.processes) return NVML_ERROR_NOT_SUPPORTED;
    const auto samples = fake_process_utilization::SamplesOf(c.now);
    if (samples.empty()) return NVML_ERROR_NOT_FOUND;
    if (utilization == nullptr || *processSamplesCount < samples.size()) {
      *processSamplesCount = static_cast<unsigned>(samples.size());
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    const unsigned long long now = fake_process_utilization::NowUs();
    for (std::size_t i = 0; i < samples.size(); ++i) {
      utilization[i] = {};
      utilization[i].pid = samples[i].pid;
      utilization[i].timeStamp = now;
      utilization[i].smUtil = samples[i].sm;
      utilization[i].memUtil = samples[i].memory;
    }
    *processSamplesCount = static_cast<unsigned>(samples.size());
    return NVML_SUCCESS;
  });
}

}  // extern "C"
