// Clocks, performance state, clock event reasons, violations and modes.
#include <chrono>

#include "fake_state.h"

using fake::GpuCall;
using fake::PutEnabled;
using fake::PutUint;
using fake::WithGpu;
using gpudoctor::GpuStatus;

namespace {

using IntField = std::optional<std::int64_t> GpuStatus::*;

struct ClockFields {
  IntField current;
  IntField max;
  IntField applications;
  IntField default_applications;
  const char* current_name;
  const char* max_name;
  const char* applications_name;
  const char* default_applications_name;
};

// Clock fields per nvmlClockType_t; nullptr for types we do not model.
const ClockFields* ClockFieldsFor(int type) {
  using G = GpuStatus;
  static const ClockFields kGraphics = {
      &G::clocks_graphics_mhz,
      &G::clocks_max_graphics_mhz,
      &G::clocks_applications_graphics_mhz,
      &G::clocks_default_applications_graphics_mhz,
      "clocks_graphics_mhz",
      "clocks_max_graphics_mhz",
      "clocks_applications_graphics_mhz",
      "clocks_default_applications_graphics_mhz"};
  // Applications clocks have no SM entry of their own: NVML reports the
  // graphics one.
  static const ClockFields kSm = {&G::clocks_sm_mhz,
                                  &G::clocks_max_sm_mhz,
                                  &G::clocks_applications_graphics_mhz,
                                  &G::clocks_default_applications_graphics_mhz,
                                  "clocks_sm_mhz",
                                  "clocks_max_sm_mhz",
                                  "clocks_applications_graphics_mhz",
                                  "clocks_default_applications_graphics_mhz"};
  static const ClockFields kMemory = {
      &G::clocks_memory_mhz,
      &G::clocks_max_memory_mhz,
      &G::clocks_applications_memory_mhz,
      &G::clocks_default_applications_memory_mhz,
      "clocks_memory_mhz",
      "clocks_max_memory_mhz",
      "clocks_applications_memory_mhz",
      "clocks_default_applications_memory_mhz"};
  switch (type) {
    case NVML_CLOCK_GRAPHICS:
      return &kGraphics;
    case NVML_CLOCK_SM:
      return &kSm;
    case NVML_CLOCK_MEM:
      return &kMemory;
    default:
      return nullptr;
  }
}

// Serves one of the four clock getters.
nvmlReturn_t GetClock(const char* function, nvmlDevice_t device, int type, unsigned* mhz,
                      IntField ClockFields::*member,
                      const char* ClockFields::*name) {
  const ClockFields* fields = ClockFieldsFor(type);
  const char* field_name = fields ? fields->*name : "";
  return WithGpu(function, device, {field_name}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (fields == nullptr) {
      return type == 3 ? NVML_ERROR_NOT_SUPPORTED  // video clock
                       : NVML_ERROR_INVALID_ARGUMENT;
    }
    return PutUint(c.now.*(fields->*member), mhz);
  });
}

nvmlReturn_t GetReasons(const char* function, nvmlDevice_t device,
                        unsigned long long* reasons) {
  return WithGpu(function, device, {"clock_event_reasons"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   if (reasons == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
                   if (!c.now.clock_event_reasons_mask)
                     return NVML_ERROR_NOT_SUPPORTED;
                   *reasons = *c.now.clock_event_reasons_mask;
                   return NVML_SUCCESS;
                 });
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                    unsigned int* clock) {
  return GetClock(__func__, device, type, clock, &ClockFields::current,
                  &ClockFields::current_name);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device,
                                       nvmlClockType_t type,
                                       unsigned int* clock) {
  return GetClock(__func__, device, type, clock, &ClockFields::max,
                  &ClockFields::max_name);
}

nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device,
                                            nvmlClockType_t clockType,
                                            unsigned int* clockMHz) {
  return GetClock(__func__, device, clockType, clockMHz, &ClockFields::applications,
                  &ClockFields::applications_name);
}

nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device,
                                                   nvmlClockType_t clockType,
                                                   unsigned int* clockMHz) {
  return GetClock(__func__, device, clockType, clockMHz,
                  &ClockFields::default_applications,
                  &ClockFields::default_applications_name);
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device,
                                           nvmlPstates_t* pState) {
  return WithGpu(__func__, device, {"pstate"}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (pState == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (!c.now.pstate) return NVML_ERROR_NOT_SUPPORTED;
    *pState = static_cast<int>(*c.now.pstate);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(
    nvmlDevice_t device, unsigned long long* reasons) {
  return GetReasons(__func__, device, reasons);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(
    nvmlDevice_t device, unsigned long long* reasons) {
  return GetReasons(__func__, device, reasons);
}

nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device,
                                          nvmlPerfPolicyType_t perfPolicyType,
                                          nvmlViolationTime_t* violTime) {
  const char* name = perfPolicyType == NVML_PERF_POLICY_POWER
                         ? "violation_power_ns"
                         : "violation_thermal_ns";
  return WithGpu(__func__, device, {name}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (violTime == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    std::optional<std::int64_t> ns;
    if (perfPolicyType == NVML_PERF_POLICY_POWER) {
      ns = c.now.violation_power_ns;
    } else if (perfPolicyType == NVML_PERF_POLICY_THERMAL) {
      ns = c.now.violation_thermal_ns;
    }
    if (!ns) return NVML_ERROR_NOT_SUPPORTED;
    using namespace std::chrono;
    violTime->referenceTime = static_cast<unsigned long long>(
        duration_cast<microseconds>(system_clock::now().time_since_epoch())
            .count());
    violTime->violationTime = static_cast<unsigned long long>(*ns);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device,
                                          nvmlEnableState_t* mode) {
  return WithGpu(__func__, device, {"persistence_mode"}, [&](const GpuCall& c) {
    return PutEnabled(c.now.persistence_mode, mode);
  });
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device,
                                      nvmlComputeMode_t* mode) {
  return WithGpu(__func__, device, {"compute_mode"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   if (mode == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
                   const std::optional<std::string>& name = c.now.compute_mode;
                   if (!name) return NVML_ERROR_NOT_SUPPORTED;
                   if (*name == "Default")
                     *mode = NVML_COMPUTEMODE_DEFAULT;
                   else if (*name == "Exclusive_Process")
                     *mode = NVML_COMPUTEMODE_EXCLUSIVE_PROCESS;
                   else if (*name == "Prohibited")
                     *mode = NVML_COMPUTEMODE_PROHIBITED;
                   else if (*name == "Exclusive_Thread")
                     *mode = NVML_COMPUTEMODE_EXCLUSIVE_THREAD;
                   else
                     return NVML_ERROR_UNKNOWN;
                   return NVML_SUCCESS;
                 });
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device,
                                  unsigned int* currentMode,
                                  unsigned int* pendingMode) {
  return WithGpu(
      __func__, device, {"mig_mode_enabled", "mig_mode_pending"},
      [&](const GpuCall& c) -> nvmlReturn_t {
        if (currentMode == nullptr || pendingMode == nullptr) {
          return NVML_ERROR_INVALID_ARGUMENT;
        }
        if (!c.now.mig_mode_enabled) return NVML_ERROR_NOT_SUPPORTED;
        *currentMode = *c.now.mig_mode_enabled ? 1 : 0;
        *pendingMode =
            c.now.mig_mode_pending.value_or(*c.now.mig_mode_enabled) ? 1 : 0;
        return NVML_SUCCESS;
      });
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device,
                                  nvmlEnableState_t* current,
                                  nvmlEnableState_t* pending) {
  return WithGpu(__func__, device, {"ecc_mode_enabled", "ecc_mode_pending"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   if (current == nullptr || pending == nullptr) {
                     return NVML_ERROR_INVALID_ARGUMENT;
                   }
                   if (!c.now.ecc_mode_enabled) return NVML_ERROR_NOT_SUPPORTED;
                   PutEnabled(c.now.ecc_mode_enabled, current);
                   return PutEnabled(
                       c.now.ecc_mode_pending.value_or(*c.now.ecc_mode_enabled),
                       pending);
                 });
}

}  // extern "C"
