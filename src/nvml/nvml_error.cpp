#include "nvml/nvml_error.h"

#include <array>
#include <utility>

namespace gpudoctor {
namespace {

struct ReturnInfo {
  nvmlReturn_t code;
  const char* name;
  const char* message;
  ErrorCode category;
};

constexpr std::array kReturns = {
    ReturnInfo{NVML_SUCCESS, "NVML_SUCCESS", "success", ErrorCode::kUnknown},
    ReturnInfo{NVML_ERROR_UNINITIALIZED, "NVML_ERROR_UNINITIALIZED", "NVML was not initialised", ErrorCode::kUnavailable},
    ReturnInfo{NVML_ERROR_INVALID_ARGUMENT, "NVML_ERROR_INVALID_ARGUMENT", "invalid argument or device handle", ErrorCode::kInvalid},
    ReturnInfo{NVML_ERROR_NOT_SUPPORTED, "NVML_ERROR_NOT_SUPPORTED", "not supported on this GPU", ErrorCode::kNotSupported},
    ReturnInfo{NVML_ERROR_NO_PERMISSION, "NVML_ERROR_NO_PERMISSION", "permission denied", ErrorCode::kPermission},
    ReturnInfo{NVML_ERROR_ALREADY_INITIALIZED, "NVML_ERROR_ALREADY_INITIALIZED", "already initialised", ErrorCode::kUnknown},
    ReturnInfo{NVML_ERROR_NOT_FOUND, "NVML_ERROR_NOT_FOUND", "not found", ErrorCode::kNotFound},
    ReturnInfo{NVML_ERROR_INSUFFICIENT_SIZE, "NVML_ERROR_INSUFFICIENT_SIZE", "buffer too small", ErrorCode::kInvalid},
    ReturnInfo{NVML_ERROR_INSUFFICIENT_POWER, "NVML_ERROR_INSUFFICIENT_POWER", "external power cables are not properly attached", ErrorCode::kUnavailable},
    ReturnInfo{NVML_ERROR_DRIVER_NOT_LOADED, "NVML_ERROR_DRIVER_NOT_LOADED", "the NVIDIA kernel driver is not loaded", ErrorCode::kUnavailable},
    ReturnInfo{NVML_ERROR_TIMEOUT, "NVML_ERROR_TIMEOUT", "timed out", ErrorCode::kTimeout},
    ReturnInfo{NVML_ERROR_IRQ_ISSUE, "NVML_ERROR_IRQ_ISSUE", "the kernel detected an interrupt problem with the GPU", ErrorCode::kIo},
    ReturnInfo{NVML_ERROR_LIBRARY_NOT_FOUND, "NVML_ERROR_LIBRARY_NOT_FOUND", "a required library (e.g. libcuda) was not found", ErrorCode::kUnavailable},
    ReturnInfo{NVML_ERROR_FUNCTION_NOT_FOUND, "NVML_ERROR_FUNCTION_NOT_FOUND", "this NVML does not implement the function", ErrorCode::kNotSupported},
    ReturnInfo{NVML_ERROR_CORRUPTED_INFOROM, "NVML_ERROR_CORRUPTED_INFOROM", "the GPU's infoROM is corrupted", ErrorCode::kCorrupt},
    ReturnInfo{NVML_ERROR_GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST", "the GPU has fallen off the bus or is otherwise inaccessible", ErrorCode::kLost},
    ReturnInfo{NVML_ERROR_RESET_REQUIRED, "NVML_ERROR_RESET_REQUIRED", "the GPU needs a reset before it can be used again", ErrorCode::kUnavailable},
    ReturnInfo{NVML_ERROR_OPERATING_SYSTEM, "NVML_ERROR_OPERATING_SYSTEM", "the operating system blocked access to the GPU (cgroups or device permissions)", ErrorCode::kPermission},
    ReturnInfo{NVML_ERROR_LIB_RM_VERSION_MISMATCH, "NVML_ERROR_LIB_RM_VERSION_MISMATCH", "driver/library version mismatch: the loaded kernel module and libnvidia-ml differ", ErrorCode::kUnavailable},
    ReturnInfo{NVML_ERROR_IN_USE, "NVML_ERROR_IN_USE", "the GPU is in use", ErrorCode::kUnavailable},
    ReturnInfo{NVML_ERROR_MEMORY, "NVML_ERROR_MEMORY", "insufficient memory", ErrorCode::kIo},
    ReturnInfo{NVML_ERROR_NO_DATA, "NVML_ERROR_NO_DATA", "no data", ErrorCode::kNotFound},
    ReturnInfo{NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", "not available on vGPU while ECC is enabled", ErrorCode::kNotSupported},
    ReturnInfo{NVML_ERROR_INSUFFICIENT_RESOURCES, "NVML_ERROR_INSUFFICIENT_RESOURCES", "insufficient resources", ErrorCode::kIo},
    ReturnInfo{NVML_ERROR_FREQ_NOT_SUPPORTED, "NVML_ERROR_FREQ_NOT_SUPPORTED", "frequency not supported", ErrorCode::kNotSupported},
    ReturnInfo{NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", "structure version not supported by this driver", ErrorCode::kNotSupported},
    ReturnInfo{NVML_ERROR_DEPRECATED, "NVML_ERROR_DEPRECATED", "deprecated by this driver", ErrorCode::kNotSupported},
    ReturnInfo{NVML_ERROR_NOT_READY, "NVML_ERROR_NOT_READY", "the system is not ready", ErrorCode::kUnavailable},
    ReturnInfo{NVML_ERROR_GPU_NOT_FOUND, "NVML_ERROR_GPU_NOT_FOUND", "no GPU found", ErrorCode::kNotFound},
    ReturnInfo{NVML_ERROR_INVALID_STATE, "NVML_ERROR_INVALID_STATE", "the GPU is in an invalid state for this request", ErrorCode::kUnavailable},
    ReturnInfo{NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED", "reset type not supported", ErrorCode::kNotSupported},
    ReturnInfo{NVML_ERROR_UNKNOWN, "NVML_ERROR_UNKNOWN", "unknown internal driver error", ErrorCode::kUnknown},
};

const ReturnInfo* Find(nvmlReturn_t code) {
  for (const auto& r : kReturns) {
    if (r.code == code) return &r;
  }
  return nullptr;
}

}  // namespace

std::string NvmlReturnName(nvmlReturn_t code) {
  if (const auto* r = Find(code)) return r->name;
  return "NVML_ERROR_" + std::to_string(code);
}

std::string NvmlReturnMessage(nvmlReturn_t code) {
  if (const auto* r = Find(code)) return r->message;
  return "unknown NVML return code " + std::to_string(code);
}

nvmlReturn_t NvmlReturnFromName(const std::string& name) {
  for (const auto& r : kReturns) {
    if (name == r.name) return r.code;
  }
  return -1;
}

Error NvmlError(nvmlReturn_t code, const std::string& call) {
  const auto* r = Find(code);
  return Error{r ? r->category : ErrorCode::kUnknown,
               call + ": " + NvmlReturnMessage(code) + " (" +
                   NvmlReturnName(code) + ")"};
}

std::string NvmlInitAdvice(nvmlReturn_t code) {
  switch (code) {
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "load it with 'sudo modprobe nvidia' or install the NVIDIA driver "
             "(Debian: 'apt install nvidia-driver'); check 'dmesg | grep -i nvrm'";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return "the driver was upgraded without reloading the kernel module: "
             "reboot, or unload and reload the nvidia modules";
    case NVML_ERROR_NO_PERMISSION:
      return "run as a user allowed to open /dev/nvidia*, or as root";
    default:
      return "check 'dmesg | grep -i nvrm' and that 'nvidia-smi' works";
  }
}

}  // namespace gpudoctor
