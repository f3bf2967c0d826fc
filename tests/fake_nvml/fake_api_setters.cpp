// Setters: they change the base state that later getters return, and each
// call is appended to $FAKE_NVML_CALL_LOG when set.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fake_state.h"

using fake::GpuCall;
using gpudoctor::GpuStatus;

namespace {

void LogCall(const char* function, nvmlDevice_t device, const std::string& args,
             nvmlReturn_t rc) {
  const char* path = std::getenv("FAKE_NVML_CALL_LOG");
  if (path == nullptr || *path == '\0') return;
  std::string gpu = "?";
  {
    std::lock_guard<std::mutex> lock(fake::TheState().mu);
    int index = fake::IndexOf(device);
    if (index >= 0) gpu = std::to_string(index);
  }
  if (FILE* log = std::fopen(path, "a")) {
    std::fprintf(log, "%s gpu=%s%s%s -> %d\n", function, gpu.c_str(),
                 args.empty() ? "" : " ", args.c_str(), rc);
    std::fclose(log);
  }
}

template <typename Body>
nvmlReturn_t Setter(const char* function, const char* field,
                    nvmlDevice_t device, const std::string& args, Body&& body) {
  nvmlReturn_t rc = fake::WithGpu(function, device, {field}, [&](const GpuCall& c) {
    nvmlReturn_t changed = body(c);
    c.gpu->applied.reset();  // the next call sees the new base state
    return changed;
  });
  LogCall(function, device, args, rc);
  return rc;
}

bool Outside(double value, const std::optional<double>& min,
             const std::optional<double>& max) {
  return (min && value < *min) || (max && value > *max);
}

const char* ComputeModeName(int mode) {
  switch (mode) {
    case NVML_COMPUTEMODE_DEFAULT:
      return "Default";
    case NVML_COMPUTEMODE_PROHIBITED:
      return "Prohibited";
    case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS:
      return "Exclusive_Process";
    default:
      return nullptr;
  }
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceSetPersistenceMode(nvmlDevice_t device,
                                          nvmlEnableState_t mode) {
  return Setter(
      "nvmlDeviceSetPersistenceMode", "set_persistence_mode", device,
      "mode=" + std::to_string(mode), [&](const GpuCall& c) -> nvmlReturn_t {
        if (mode != NVML_FEATURE_ENABLED && mode != NVML_FEATURE_DISABLED) {
          return NVML_ERROR_INVALID_ARGUMENT;
        }
        if (!c.now.persistence_mode) return NVML_ERROR_NOT_SUPPORTED;
        c.gpu->status.persistence_mode = mode == NVML_FEATURE_ENABLED;
        return NVML_SUCCESS;
      });
}

nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device,
                                               unsigned int limit) {
  return Setter(
      "nvmlDeviceSetPowerManagementLimit", "set_power_limit", device,
      "limit_mw=" + std::to_string(limit),
      [&](const GpuCall& c) -> nvmlReturn_t {
        if (!c.now.power_limit_w) return NVML_ERROR_NOT_SUPPORTED;
        double watts = limit / 1000.0;
        if (Outside(watts, c.now.power_min_limit_w, c.now.power_max_limit_w)) {
          return NVML_ERROR_INVALID_ARGUMENT;
        }
        GpuStatus& base = c.gpu->status;
        base.power_limit_w = watts;
        if (base.power_enforced_limit_w) base.power_enforced_limit_w = watts;
        return NVML_SUCCESS;
      });
}

nvmlReturn_t nvmlDeviceSetApplicationsClocks(nvmlDevice_t device,
                                             unsigned int memClockMHz,
                                             unsigned int graphicsClockMHz) {
  return Setter(
      "nvmlDeviceSetApplicationsClocks", "set_applications_clocks", device,
      "mem_mhz=" + std::to_string(memClockMHz) +
          " graphics_mhz=" + std::to_string(graphicsClockMHz),
      [&](const GpuCall& c) -> nvmlReturn_t {
        const GpuStatus& g = c.now;
        if (!g.clocks_applications_graphics_mhz ||
            !g.clocks_applications_memory_mhz) {
          return NVML_ERROR_NOT_SUPPORTED;
        }
        if (memClockMHz == 0 || graphicsClockMHz == 0 ||
            (g.clocks_max_memory_mhz &&
             memClockMHz > *g.clocks_max_memory_mhz) ||
            (g.clocks_max_graphics_mhz &&
             graphicsClockMHz > *g.clocks_max_graphics_mhz)) {
          return NVML_ERROR_INVALID_ARGUMENT;
        }
        c.gpu->status.clocks_applications_memory_mhz = memClockMHz;
        c.gpu->status.clocks_applications_graphics_mhz = graphicsClockMHz;
        return NVML_SUCCESS;
      });
}

nvmlReturn_t nvmlDeviceResetApplicationsClocks(nvmlDevice_t device) {
  return Setter("nvmlDeviceResetApplicationsClocks", "set_applications_clocks",
                device, "", [&](const GpuCall& c) -> nvmlReturn_t {
                  const GpuStatus& g = c.now;
                  if (!g.clocks_default_applications_graphics_mhz ||
                      !g.clocks_default_applications_memory_mhz) {
                    return NVML_ERROR_NOT_SUPPORTED;
                  }
                  c.gpu->status.clocks_applications_memory_mhz =
                      g.clocks_default_applications_memory_mhz;
                  c.gpu->status.clocks_applications_graphics_mhz =
                      g.clocks_default_applications_graphics_mhz;
                  return NVML_SUCCESS;
                });
}

nvmlReturn_t nvmlDeviceSetComputeMode(nvmlDevice_t device,
                                      nvmlComputeMode_t mode) {
  return Setter("nvmlDeviceSetComputeMode", "set_compute_mode", device,
                "mode=" + std::to_string(mode),
                [&](const GpuCall& c) -> nvmlReturn_t {
                  if (!c.now.compute_mode) return NVML_ERROR_NOT_SUPPORTED;
                  if (mode == NVML_COMPUTEMODE_EXCLUSIVE_THREAD) {
                    return NVML_ERROR_NOT_SUPPORTED;  // removed from the driver
                  }
                  const char* name = ComputeModeName(mode);
                  if (name == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
                  c.gpu->status.compute_mode = name;
                  return NVML_SUCCESS;
                });
}

}  // extern "C"
