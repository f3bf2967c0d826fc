// Per-process utilisation: nvmlDeviceGetProcessesUtilizationInfo (R550 on)
// and nvmlDeviceGetProcessUtilization.
#include "fake_state.h"

extern "C" {

nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device,
                                                   nvmlProcessesUtilizationInfo_v1_t* info) {
  return fake::WithGpu(__func__, device, {"processes"}, [&](const fake::GpuCall&) -> nvmlReturn_t {
    if (info == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_ERROR_NOT_SUPPORTED;
  });
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                             nvmlProcessUtilizationSample_t* utilization,
                                             unsigned int* processSamplesCount,
                                             unsigned long long lastSeenTimeStamp) {
  (void)utilization;
  (void)lastSeenTimeStamp;
  return fake::WithGpu(__func__, device, {"processes"}, [&](const fake::GpuCall&) -> nvmlReturn_t {
    if (processSamplesCount == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_ERROR_NOT_SUPPORTED;
  });
}

}  // extern "C"
