#include "nvml/field_ids.h"

#include <array>
#include <charconv>

#include "nvml/nvml_api.h"

namespace gpudoctor {

namespace field_ids_detail {

using VersionNumbers = std::array<int, 3>;

// "580.76.05" -> {580, 76, 5}, "575.51" -> {575, 51, 0}; nullopt otherwise.
std::optional<VersionNumbers> VersionOf(std::string_view text) {
  VersionNumbers parts = {0, 0, 0};
  std::size_t n = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (true) {
    if (n == parts.size()) return std::nullopt;
    auto [next, ec] = std::from_chars(p, end, parts[n]);
    if (ec != std::errc() || next == p || parts[n] < 0) return std::nullopt;
    ++n;
    p = next;
    if (p == end) break;
    if (*p != '.') return std::nullopt;
    ++p;
  }
  if (n < 2) return std::nullopt;
  return parts;
}

}  // namespace field_ids_detail

std::optional<unsigned> ThermalSlowdownFieldId(std::optional<std::string_view> driver_version) {
  if (!driver_version) return std::nullopt;
  const auto v = field_ids_detail::VersionOf(*driver_version);
  if (!v) return std::nullopt;
  constexpr field_ids_detail::VersionNumbers kFirst251 = {575, 51, 2};
  constexpr field_ids_detail::VersionNumbers kFirst269 = {580, 82, 0};
  if (*v >= kFirst251 && *v < kFirst269) return NVML_FI_DEV_SW_THERM_SLOWDOWN_575;
  return NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN;
}

}  // namespace gpudoctor
