// Version values of NVIDIA drivers ("535.183.01", "595.84") and CUDA
// ("12.2", "12.2.140"), compared numerically. The parsers that read them
// from text are in parse/version_numbers.h.
#pragma once

#include <compare>
#include <optional>
#include <string>

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

}  // namespace gpudoctor
