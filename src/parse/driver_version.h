// Pure parsers for where the NVIDIA driver states its version outside NVML:
// /proc/driver/nvidia/version, the user-space library file names
// (libnvidia-ml.so.535.183.01), /proc/driver/nvidia/params, and the
// `EnableGpuFirmware` module parameter. No I/O; never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "facts/versions.h"
#include "parse/version_numbers.h"

namespace gpudoctor {

// The first line of /proc/driver/nvidia/version (and the "GCC version:"
// line); nullopt when no "NVRM version:" line with a driver version is found.
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

// NVreg_EnableGpuFirmware decoded (GspFirmwareParam, facts/versions.h).
GspFirmwareParam DecodeEnableGpuFirmware(std::uint32_t raw);

}  // namespace gpudoctor
