// Pure parsers for where the NVIDIA driver states its version outside NVML:
// /proc/driver/nvidia/version, the user-space library file names
// (libnvidia-ml.so.535.183.01), /proc/driver/nvidia/params, and the
// `EnableGpuFirmware` module parameter. No I/O; never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parse/version_numbers.h"

namespace gpudoctor {

// The first line of /proc/driver/nvidia/version, e.g.
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.135  Tue Nov 12 ...
//   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (...)  ...
struct KernelModuleVersion {
  DriverVersion version;
  bool open_module = false;  // "Open Kernel Module"
  std::string arch;          // "x86_64", "aarch64"; empty when not stated
  std::string build_info;    // the rest of the first line after the version
  std::string gcc_version;   // the "GCC version:" line, when present
};

// nullopt when no "NVRM version:" line with a driver version is found.
std::optional<KernelModuleVersion> ParseProcDriverVersion(std::string_view text);

// The version a versioned shared-library file name carries:
// ("libnvidia-ml.so.535.183.01", "libnvidia-ml.so") -> 535.183.01. Names
// with fewer than two version components (the "libnvidia-ml.so.1" SONAME
// link) give nullopt.
std::optional<DriverVersion> DriverVersionFromLibraryName(std::string_view file_name,
                                                          std::string_view library);

// A numeric value of /proc/driver/nvidia/params ("EnableGpuFirmware: 18").
// Values may be decimal or 0x-prefixed hex. nullopt when the key is absent
// or its value is not a number.
std::optional<std::uint32_t> ParseNvidiaParam(std::string_view params_text, std::string_view key);

// NVreg_EnableGpuFirmware decoded: bits 0-3 are the mode (0 disabled,
// 1 enabled, 2 the chip's default), bit 4 allows falling back to the
// non-GSP driver, bit 5 turns GSP on by default for workstation/server SKUs.
// The driver's default value is 0x12 (18): default mode, fallback allowed.
enum class GspMode { kDisabled, kEnabled, kDefault, kUnknown };
struct GspFirmwareParam {
  std::uint32_t raw = 0;
  GspMode mode = GspMode::kUnknown;
  bool allow_fallback = false;
  bool default_on_ws_server = false;
};
GspFirmwareParam DecodeEnableGpuFirmware(std::uint32_t raw);
std::string_view GspModeName(GspMode mode);  // "disabled", "enabled", "default", "unknown"

}  // namespace gpudoctor
