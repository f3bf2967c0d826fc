#include "parse/version_numbers.h"

#include <charconv>

namespace gpudoctor {
namespace {

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::optional<VersionParts> SplitVersion(std::string_view text, int min_parts, int max_parts) {
  text = TrimSpace(text);
  VersionParts out;
  while (true) {
    if (out.count >= max_parts || out.count >= 4) return std::nullopt;
    const auto dot = text.find('.');
    const std::string_view part = text.substr(0, dot);
    // Driver components are short; more than 6 digits is not a version.
    if (part.empty() || part.size() > 6) return std::nullopt;
    int value = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || ptr != part.data() + part.size()) return std::nullopt;
    out.parts[out.count++] = value;
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  if (out.count < min_parts) return std::nullopt;
  return out;
}

std::optional<DriverVersion> ParseDriverVersion(std::string_view text) {
  const auto parts = SplitVersion(text, 2, 3);
  if (!parts) return std::nullopt;
  DriverVersion v;
  v.major = parts->parts[0];
  v.minor = parts->parts[1];
  v.has_patch = parts->count == 3;
  v.patch = v.has_patch ? parts->parts[2] : 0;
  v.text = std::string(TrimSpace(text));
  return v;
}

std::optional<CudaVersion> ParseCudaVersionText(std::string_view text) {
  const auto parts = SplitVersion(text, 2, 3);
  if (!parts) return std::nullopt;
  CudaVersion v;
  v.major = parts->parts[0];
  v.minor = parts->parts[1];
  if (parts->count == 3) v.patch = parts->parts[2];
  if (v.major <= 0 || v.major > 99 || v.minor > 99) return std::nullopt;
  return v;
}

std::optional<CudaVersion> CudaFromEncoded(int encoded) {
  if (encoded <= 0 || encoded % 10 != 0) return std::nullopt;
  return CudaVersion{encoded / 1000, (encoded % 1000) / 10, std::nullopt};
}

}  // namespace gpudoctor
