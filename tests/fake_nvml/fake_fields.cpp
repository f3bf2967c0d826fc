// Timelines, metric fields and NVML return code names for the fake NVML.
#include <array>
#include <cmath>
#include <cstdint>

#include "core/gpu_fields.h"
#include "fake_scenario.h"

namespace fake {
namespace {

struct CodeName {
  nvmlReturn_t code;
  std::string_view name;
  const char* text;
};

constexpr std::array<CodeName, 32> kCodes = {{
    {NVML_SUCCESS, "NVML_SUCCESS", "Success"},
    {NVML_ERROR_UNINITIALIZED, "NVML_ERROR_UNINITIALIZED", "Uninitialized"},
    {NVML_ERROR_INVALID_ARGUMENT, "NVML_ERROR_INVALID_ARGUMENT",
     "Invalid Argument"},
    {NVML_ERROR_NOT_SUPPORTED, "NVML_ERROR_NOT_SUPPORTED", "Not Supported"},
    {NVML_ERROR_NO_PERMISSION, "NVML_ERROR_NO_PERMISSION",
     "Insufficient Permissions"},
    {NVML_ERROR_ALREADY_INITIALIZED, "NVML_ERROR_ALREADY_INITIALIZED",
     "Already Initialized"},
    {NVML_ERROR_NOT_FOUND, "NVML_ERROR_NOT_FOUND", "Not Found"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "NVML_ERROR_INSUFFICIENT_SIZE",
     "Insufficient Size"},
    {NVML_ERROR_INSUFFICIENT_POWER, "NVML_ERROR_INSUFFICIENT_POWER",
     "Insufficient External Power"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "NVML_ERROR_DRIVER_NOT_LOADED",
     "Driver Not Loaded"},
    {NVML_ERROR_TIMEOUT, "NVML_ERROR_TIMEOUT", "Timeout"},
    {NVML_ERROR_IRQ_ISSUE, "NVML_ERROR_IRQ_ISSUE", "Interrupt request issue"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "NVML_ERROR_LIBRARY_NOT_FOUND",
     "NVML Shared Library Not Found"},
    {NVML_ERROR_FUNCTION_NOT_FOUND, "NVML_ERROR_FUNCTION_NOT_FOUND",
     "Function Not Found"},
    {NVML_ERROR_CORRUPTED_INFOROM, "NVML_ERROR_CORRUPTED_INFOROM",
     "Corrupted infoROM"},
    {NVML_ERROR_GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST", "GPU is lost"},
    {NVML_ERROR_RESET_REQUIRED, "NVML_ERROR_RESET_REQUIRED",
     "GPU requires restart"},
    {NVML_ERROR_OPERATING_SYSTEM, "NVML_ERROR_OPERATING_SYSTEM",
     "The operating system has blocked the request"},
    {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
     "Driver/library version mismatch"},
    {NVML_ERROR_IN_USE, "NVML_ERROR_IN_USE", "In use by another client"},
    {NVML_ERROR_MEMORY, "NVML_ERROR_MEMORY", "Insufficient Memory"},
    {NVML_ERROR_NO_DATA, "NVML_ERROR_NO_DATA", "No data"},
    {NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
     "ECC is enabled"},
    {NVML_ERROR_INSUFFICIENT_RESOURCES, "NVML_ERROR_INSUFFICIENT_RESOURCES",
     "Insufficient resources"},
    {NVML_ERROR_FREQ_NOT_SUPPORTED, "NVML_ERROR_FREQ_NOT_SUPPORTED",
     "Frequency not supported"},
    {NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
     "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", "Argument version mismatch"},
    {NVML_ERROR_DEPRECATED, "NVML_ERROR_DEPRECATED", "Deprecated"},
    {NVML_ERROR_NOT_READY, "NVML_ERROR_NOT_READY", "Not ready"},
    {NVML_ERROR_GPU_NOT_FOUND, "NVML_ERROR_GPU_NOT_FOUND", "GPU not found"},
    {NVML_ERROR_INVALID_STATE, "NVML_ERROR_INVALID_STATE", "Invalid state"},
    {NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED",
     "Reset type not supported"},
    {NVML_ERROR_UNKNOWN, "NVML_ERROR_UNKNOWN", "Unknown Error"},
}};

// Names an error fault may target besides the scalar fields.
constexpr std::array<std::string_view, 15> kOtherFaultFields = {
    "name",
    "uuid",
    "pci_bus_id",
    "pstate",
    "clock_event_reasons",
    "fan_speeds_percent",
    "processes",
    "nvlinks",
    "fabric",
    "nvlink_peers",
    "register_events",
    "set_persistence_mode",
    "set_power_limit",
    "set_applications_clocks",
    "set_compute_mode",
};

bool IsNumericScalar(const gpudoctor::GpuField& field) {
  return !std::holds_alternative<gpudoctor::TextMember>(field.member);
}

}  // namespace

std::optional<double> Timeline::At(double t) const {
  switch (kind) {
    case Kind::kValues: {
      if (values.empty()) return std::nullopt;
      double slot = period_s > 0 ? std::floor(std::max(t, 0.0) / period_s) : 0;
      auto n = static_cast<double>(values.size());
      return values[static_cast<std::size_t>(std::fmod(slot, n))];
    }
    case Kind::kRamp:
      if (t <= 0 || seconds <= 0) return t <= 0 ? from : to;
      if (t >= seconds) return to;
      return from + (to - from) * (t / seconds);
    case Kind::kSteps: {
      std::optional<double> value;
      for (const auto& [at, v] : steps) {
        if (t >= at) value = v;
      }
      return value;
    }
  }
  return std::nullopt;
}

bool IsMetricField(std::string_view name) {
  if (name == "pstate" || name == "clock_event_reasons") return true;
  const gpudoctor::GpuField* field = gpudoctor::FindGpuField(name);
  return field != nullptr && IsNumericScalar(*field);
}

bool SetMetricField(gpudoctor::GpuStatus& gpu, std::string_view name,
                    double value) {
  if (name == "pstate") {
    gpu.pstate = std::llround(value);
    return true;
  }
  if (name == "clock_event_reasons") {
    gpu.clock_event_reasons_mask =
        static_cast<std::uint64_t>(std::llround(std::max(value, 0.0)));
    return true;
  }
  const gpudoctor::GpuField* field = gpudoctor::FindGpuField(name);
  if (field == nullptr || !IsNumericScalar(*field)) return false;
  return gpudoctor::SetNumber(gpu, *field, value);
}

bool IsFaultableField(std::string_view name) {
  if (gpudoctor::FindGpuField(name) != nullptr) return true;
  for (std::string_view other : kOtherFaultFields) {
    if (other == name) return true;
  }
  return false;
}

std::optional<nvmlReturn_t> ReturnCodeByName(std::string_view name) {
  for (const CodeName& c : kCodes) {
    if (c.name == name) return c.code;
  }
  return std::nullopt;
}

const char* ReturnCodeText(nvmlReturn_t code) {
  for (const CodeName& c : kCodes) {
    if (c.code == code) return c.text;
  }
  return "Unknown Error";
}

}  // namespace fake
