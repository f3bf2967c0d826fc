#include "facts/version_numbers.h"

namespace gpudoctor {

std::string DriverVersion::ToString() const {
  if (!text.empty()) return text;
  std::string s = std::to_string(major) + "." + std::to_string(minor);
  if (has_patch) s += "." + std::to_string(patch);
  return s;
}

std::strong_ordering operator<=>(const DriverVersion& a, const DriverVersion& b) {
  if (auto c = a.major <=> b.major; c != 0) return c;
  if (auto c = a.minor <=> b.minor; c != 0) return c;
  return a.patch <=> b.patch;
}

bool operator==(const DriverVersion& a, const DriverVersion& b) { return (a <=> b) == 0; }

std::string CudaVersion::ToString() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor);
  if (patch) s += "." + std::to_string(*patch);
  return s;
}

std::strong_ordering operator<=>(const CudaVersion& a, const CudaVersion& b) {
  if (auto c = a.major <=> b.major; c != 0) return c;
  return a.minor <=> b.minor;
}

bool operator==(const CudaVersion& a, const CudaVersion& b) { return (a <=> b) == 0; }

}  // namespace gpudoctor
