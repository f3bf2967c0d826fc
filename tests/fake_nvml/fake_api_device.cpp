// Usage, memory, temperatures, fans and power.
#include <chrono>

#include "fake_state.h"

using fake::GpuCall;
using fake::PutScaled;
using fake::PutUint;
using fake::WithGpu;
using gpudoctor::GpuStatus;

namespace {

// The field behind a temperature threshold or TLIMIT field id, or nullptr.
const std::optional<std::int64_t>* ThresholdField(const GpuStatus& g,
                                                  int type) {
  switch (type) {
    case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN:
      return &g.temperature_shutdown_c;
    case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN:
      return &g.temperature_slowdown_c;
    case NVML_TEMPERATURE_THRESHOLD_MEM_MAX:
      return &g.temperature_memory_max_c;
    case NVML_TEMPERATURE_THRESHOLD_GPU_MAX:
      return &g.temperature_max_operating_c;
    default:
      return nullptr;
  }
}

const char* ThresholdName(int type) {
  switch (type) {
    case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN:
      return "temperature_shutdown_c";
    case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN:
      return "temperature_slowdown_c";
    case NVML_TEMPERATURE_THRESHOLD_MEM_MAX:
      return "temperature_memory_max_c";
    case NVML_TEMPERATURE_THRESHOLD_GPU_MAX:
      return "temperature_max_operating_c";
    default:
      return "";
  }
}

// Writes `value` as nvmlValueType_t `type`.
void PutFieldValue(std::int64_t value, int type, nvmlFieldValue_t& v) {
  v.valueType = type;
  switch (type) {
    case NVML_VALUE_TYPE_DOUBLE: v.value.dVal = static_cast<double>(value); break;
    case NVML_VALUE_TYPE_UNSIGNED_INT: v.value.uiVal = static_cast<unsigned>(value); break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: v.value.ulVal = static_cast<unsigned long>(value); break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      v.value.ullVal = static_cast<unsigned long long>(value);
      break;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: v.value.sllVal = value; break;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
      v.value.usVal = static_cast<unsigned short>(value);
      break;
    default: v.value.siVal = static_cast<int>(value); break;
  }
}

void FillFieldValue(const GpuCall& c, nvmlFieldValue_t& v) {
  using namespace std::chrono;
  v.timestamp =
      duration_cast<microseconds>(system_clock::now().time_since_epoch())
          .count();
  v.latencyUsec = 0;
  const std::optional<std::int64_t>* field = nullptr;
  const char* name = "";
  int value_type = NVML_VALUE_TYPE_SIGNED_INT;
  if (v.fieldId == NVML_FI_DEV_MEMORY_TEMP) {
    field = &c.now.memory_temperature_c;
    name = "memory_temperature_c";
    value_type = NVML_VALUE_TYPE_UNSIGNED_INT;
  } else if (v.fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP) {
    field = &c.now.violation_power_ns;
    name = "violation_power_ns";
    value_type = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
  } else if (v.fieldId != 0 && v.fieldId == fake::TheState().scenario.thermal_violation_field) {
    field = &c.now.violation_thermal_ns;
    name = "violation_thermal_ns";
    value_type = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
  } else if (v.fieldId == NVML_FI_PWR_SMOOTHING_PRESET_PROFILE_575 &&
             fake::TheState().scenario.power_smoothing_profile_field) {
    v.nvmlReturn = NVML_SUCCESS;
    v.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    v.value.uiVal = fake::kPowerSmoothingPresetProfile;
    return;
  } else if (v.fieldId == NVML_FI_DEV_GET_GPU_RECOVERY_ACTION) {
    field = &c.now.recovery_action;
    name = "recovery_action";
    value_type = NVML_VALUE_TYPE_UNSIGNED_INT;
  } else if (v.fieldId >= NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT &&
             v.fieldId <= NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT) {
    int type =
        static_cast<int>(v.fieldId - NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT);
    field = ThresholdField(c.now, type);
    name = ThresholdName(type);
  }
  if (field == nullptr || !*field) {
    v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    return;
  }
  v.nvmlReturn = fake::ErrorFaultFor(*c.gpu, name, c.t);
  if (v.nvmlReturn != NVML_SUCCESS) return;
  PutFieldValue(**field, c.gpu->field_value_type >= 0 ? c.gpu->field_value_type : value_type, v);
}

unsigned FanCount(const GpuStatus& g) {
  if (!g.fan_speeds_percent.empty()) {
    return static_cast<unsigned>(g.fan_speeds_percent.size());
  }
  return g.fan_speed_percent ? 1 : 0;
}

// A scenario may give any two of used/free (with total); the third follows
// from total = used + free + reserved, as on a real GPU.
bool CompleteMemory(const GpuStatus& g, std::int64_t* used, std::int64_t* free_bytes) {
  if (!g.memory_total_bytes || (!g.memory_used_bytes && !g.memory_free_bytes)) {
    return false;
  }
  std::int64_t total = *g.memory_total_bytes;
  std::int64_t reserved = g.memory_reserved_bytes.value_or(0);
  *used = g.memory_used_bytes.value_or(total - reserved - g.memory_free_bytes.value_or(0));
  *free_bytes = g.memory_free_bytes.value_or(total - reserved - *used);
  if (*used < 0) *used = 0;
  if (*free_bytes < 0) *free_bytes = 0;
  return true;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                           nvmlUtilization_t* utilization) {
  return WithGpu(
      __func__, device, {"utilization_gpu_percent", "utilization_memory_percent"},
      [&](const GpuCall& c) -> nvmlReturn_t {
        if (utilization == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        const GpuStatus& g = c.now;
        if (!g.utilization_gpu_percent && !g.utilization_memory_percent) {
          return NVML_ERROR_NOT_SUPPORTED;
        }
        // One call serves both: a field the scenario left null reads as 0.
        PutUint(g.utilization_gpu_percent.value_or(0), &utilization->gpu);
        PutUint(g.utilization_memory_percent.value_or(0), &utilization->memory);
        return NVML_SUCCESS;
      });
}

// The video engines' utilisation over a one-second sampling period.
nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int* utilization,
                                             unsigned int* samplingPeriodUs) {
  return WithGpu(__func__, device, {"utilization_encoder_percent"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   if (utilization == nullptr || samplingPeriodUs == nullptr) {
                     return NVML_ERROR_INVALID_ARGUMENT;
                   }
                   if (!c.now.utilization_encoder_percent) return NVML_ERROR_NOT_SUPPORTED;
                   PutUint(*c.now.utilization_encoder_percent, utilization);
                   *samplingPeriodUs = 1000000;
                   return NVML_SUCCESS;
                 });
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int* utilization,
                                             unsigned int* samplingPeriodUs) {
  return WithGpu(__func__, device, {"utilization_decoder_percent"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   if (utilization == nullptr || samplingPeriodUs == nullptr) {
                     return NVML_ERROR_INVALID_ARGUMENT;
                   }
                   if (!c.now.utilization_decoder_percent) return NVML_ERROR_NOT_SUPPORTED;
                   PutUint(*c.now.utilization_decoder_percent, utilization);
                   *samplingPeriodUs = 1000000;
                   return NVML_SUCCESS;
                 });
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device,
                                        nvmlMemory_v2_t* memory) {
  return WithGpu(
      __func__, device,
      {"memory_total_bytes", "memory_used_bytes", "memory_free_bytes",
       "memory_reserved_bytes"},
      [&](const GpuCall& c) -> nvmlReturn_t {
        if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        if (memory->version != nvmlMemory_v2) {
          return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        }
        const GpuStatus& g = c.now;
        std::int64_t used = 0, free_bytes = 0;
        if (!CompleteMemory(g, &used, &free_bytes)) return NVML_ERROR_NOT_SUPPORTED;
        memory->total = static_cast<unsigned long long>(*g.memory_total_bytes);
        memory->reserved = static_cast<unsigned long long>(
            g.memory_reserved_bytes.value_or(0));
        memory->free = static_cast<unsigned long long>(free_bytes);
        memory->used = static_cast<unsigned long long>(used);
        return NVML_SUCCESS;
      });
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device,
                                     nvmlMemory_t* memory) {
  return WithGpu(
      __func__, device, {"memory_total_bytes", "memory_used_bytes", "memory_free_bytes"},
      [&](const GpuCall& c) -> nvmlReturn_t {
        if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        const GpuStatus& g = c.now;
        std::int64_t used = 0, free_bytes = 0;
        if (!CompleteMemory(g, &used, &free_bytes)) return NVML_ERROR_NOT_SUPPORTED;
        // v1 "used" includes what the driver reserves.
        memory->total = static_cast<unsigned long long>(*g.memory_total_bytes);
        memory->free = static_cast<unsigned long long>(free_bytes);
        memory->used = static_cast<unsigned long long>(
            used + g.memory_reserved_bytes.value_or(0));
        return NVML_SUCCESS;
      });
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device,
                                      nvmlTemperatureSensors_t sensorType,
                                      unsigned int* temp) {
  return WithGpu(__func__, device, {"temperature_c"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   if (sensorType != NVML_TEMPERATURE_GPU)
                     return NVML_ERROR_INVALID_ARGUMENT;
                   return PutUint(c.now.temperature_c, temp);
                 });
}

nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device,
                                       nvmlTemperature_v1_t* temperature) {
  return WithGpu(__func__, device, {"temperature_c"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   if (temperature == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
                   if (temperature->version != nvmlTemperature_v1) {
                     return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
                   }
                   if (temperature->sensorType != NVML_TEMPERATURE_GPU) {
                     return NVML_ERROR_INVALID_ARGUMENT;
                   }
                   if (!c.now.temperature_c) return NVML_ERROR_NOT_SUPPORTED;
                   temperature->temperature = static_cast<int>(*c.now.temperature_c);
                   return NVML_SUCCESS;
                 });
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(
    nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType,
    unsigned int* temp) {
  return WithGpu(__func__, device, {ThresholdName(thresholdType)},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   const auto* field = ThresholdField(c.now, thresholdType);
                   if (field == nullptr) {
                     return thresholdType >= 0 && thresholdType <= 7
                                ? NVML_ERROR_NOT_SUPPORTED
                                : NVML_ERROR_INVALID_ARGUMENT;
                   }
                   return PutUint(*field, temp);
                 });
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                      nvmlFieldValue_t* values) {
  return WithGpu(__func__, device, {}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (valuesCount < 0 || (valuesCount > 0 && values == nullptr)) {
      return NVML_ERROR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < valuesCount; ++i) FillFieldValue(c, values[i]);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int* numFans) {
  return WithGpu(
      __func__, device, {"fan_speeds_percent"}, [&](const GpuCall& c) -> nvmlReturn_t {
        unsigned count = FanCount(c.now);
        return PutUint(
            count == 0 ? std::nullopt : std::optional<std::int64_t>(count),
            numFans);
      });
}

nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan,
                                      unsigned int* speed) {
  return WithGpu(__func__, device, {"fan_speeds_percent"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   const GpuStatus& g = c.now;
                   unsigned count = FanCount(g);
                   if (count == 0) return NVML_ERROR_NOT_SUPPORTED;
                   if (fan >= count) return NVML_ERROR_INVALID_ARGUMENT;
                   // Fan 0 follows fan_speed_percent, so that its metrics
                   // apply.
                   if (fan == 0 && g.fan_speed_percent)
                     return PutUint(g.fan_speed_percent, speed);
                   return PutUint(g.fan_speeds_percent[fan], speed);
                 });
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int* speed) {
  return WithGpu(__func__, device, {"fan_speed_percent"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   const GpuStatus& g = c.now;
                   if (!g.fan_speed_percent && !g.fan_speeds_percent.empty()) {
                     return PutUint(g.fan_speeds_percent[0], speed);
                   }
                   return PutUint(g.fan_speed_percent, speed);
                 });
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
  return WithGpu(__func__, device, {"power_draw_w"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   return PutScaled(c.now.power_draw_w, 1000, power);
                 });
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device,
                                               unsigned int* limit) {
  return WithGpu(__func__, device, {"power_limit_w"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   return PutScaled(c.now.power_limit_w, 1000, limit);
                 });
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(
    nvmlDevice_t device, unsigned int* minLimit, unsigned int* maxLimit) {
  return WithGpu(__func__, device, {"power_min_limit_w", "power_max_limit_w"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   if (minLimit == nullptr || maxLimit == nullptr) {
                     return NVML_ERROR_INVALID_ARGUMENT;
                   }
                   if (!c.now.power_min_limit_w || !c.now.power_max_limit_w) {
                     return NVML_ERROR_NOT_SUPPORTED;
                   }
                   PutScaled(c.now.power_min_limit_w, 1000, minLimit);
                   return PutScaled(c.now.power_max_limit_w, 1000, maxLimit);
                 });
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(
    nvmlDevice_t device, unsigned int* defaultLimit) {
  return WithGpu(
      __func__, device, {"power_default_limit_w"}, [&](const GpuCall& c) -> nvmlReturn_t {
        return PutScaled(c.now.power_default_limit_w, 1000, defaultLimit);
      });
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device,
                                             unsigned int* limit) {
  return WithGpu(__func__, device, {"power_enforced_limit_w"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   return PutScaled(c.now.power_enforced_limit_w, 1000, limit);
                 });
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                 unsigned long long* energy) {
  return WithGpu(__func__, device, {"energy_total_j"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   if (energy == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
                   if (!c.now.energy_total_j) return NVML_ERROR_NOT_SUPPORTED;
                   *energy = static_cast<unsigned long long>(
                       std::max(0.0, *c.now.energy_total_j * 1000.0));
                   return NVML_SUCCESS;
                 });
}

}  // extern "C"
