// Parsers of version values for NVIDIA drivers ("535.183.01", "595.84",
// "470.74") and CUDA ("12.2", "12.2.140", NVML's 12020 encoding); the values
// and their order are in facts/version_numbers.h. Pure: no I/O, never throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "facts/version_numbers.h"

namespace gpudoctor {

// "535.183.01", "595.84", " 470.74\n". Two or three dot-separated decimal
// components; nullopt otherwise.
std::optional<DriverVersion> ParseDriverVersion(std::string_view text);

// "12.2", "12.2.140", "10.1.243", "13.0". nullopt for anything else.
std::optional<CudaVersion> ParseCudaVersionText(std::string_view text);

// 12020 -> 12.2; nullopt for values that are not positive or whose last digit
// is not 0 (the encoding never sets it).
std::optional<CudaVersion> CudaFromEncoded(int encoded);

// Splits "a.b.c" into up to `max_parts` decimal components; nullopt when a
// component is empty or not a number, or there are fewer than `min_parts`.
struct VersionParts {
  int parts[4] = {0, 0, 0, 0};
  int count = 0;
};
std::optional<VersionParts> SplitVersion(std::string_view text, int min_parts, int max_parts);

}  // namespace gpudoctor
