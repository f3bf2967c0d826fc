// Version values for NVIDIA drivers ("535.183.01", "595.84", "470.74") and
// CUDA ("12.2", "12.2.140", NVML's 12020 encoding), parsed from text and
// compared numerically. Pure: no I/O, never throws.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

// A Linux driver version: major.minor[.patch]. Components compare as numbers
// ("535.54.03" < "535.104.05"); a missing patch compares as 0. `text` keeps
// the spelling that was read, for display and for exact-match checks.
struct DriverVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  bool has_patch = false;
  std::string text;

  std::string ToString() const;  // "535.183.01" as read, or rebuilt
};

std::strong_ordering operator<=>(const DriverVersion& a, const DriverVersion& b);
bool operator==(const DriverVersion& a, const DriverVersion& b);

// "535.183.01", "595.84", " 470.74\n". Two or three dot-separated decimal
// components; nullopt otherwise.
std::optional<DriverVersion> ParseDriverVersion(std::string_view text);

// A CUDA version: major.minor with an optional third component (a toolkit's
// update, e.g. "12.2.2", or a component build, e.g. libcudart's "12.2.140").
struct CudaVersion {
  int major = 0;
  int minor = 0;
  std::optional<int> patch;

  std::string ToString() const;  // "12.2" or "12.2.140"
  // 1000 * major + 10 * minor (12.2 -> 12020), NVML's and cudaDriverGetVersion's encoding.
  int Encoded() const { return 1000 * major + 10 * minor; }
};

// Compares major.minor only; the patch is not part of the order.
std::strong_ordering operator<=>(const CudaVersion& a, const CudaVersion& b);
bool operator==(const CudaVersion& a, const CudaVersion& b);

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
