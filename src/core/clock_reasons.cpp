#include "core/clock_reasons.h"

#include <cstdio>

namespace gpudoctor {

const std::vector<ClockReason>& AllClockReasons() {
  static const std::vector<ClockReason> kReasons = {
      {0x1, "gpu_idle", "GPU idle"},
      {0x2, "applications_clocks_setting", "applications clocks setting"},
      {0x4, "sw_power_cap", "SW power cap"},
      {0x8, "hw_slowdown", "HW slowdown"},
      {0x10, "sync_boost", "sync boost"},
      {0x20, "sw_thermal_slowdown", "SW thermal slowdown"},
      {0x40, "hw_thermal_slowdown", "HW thermal slowdown"},
      {0x80, "hw_power_brake_slowdown", "HW power brake slowdown"},
      {0x100, "display_clock_setting", "display clock setting"},
  };
  return kReasons;
}

std::vector<std::string> ClockReasonNames(std::uint64_t mask) {
  std::vector<std::string> names;
  std::uint64_t known = 0;
  for (const auto& r : AllClockReasons()) {
    known |= r.bit;
    if (mask & r.bit) names.emplace_back(r.name);
  }
  if (std::uint64_t rest = mask & ~known; rest != 0) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "unknown_0x%llx",
                  static_cast<unsigned long long>(rest));
    names.emplace_back(buf);
  }
  return names;
}

std::uint64_t ClockReasonBit(std::string_view name) {
  for (const auto& r : AllClockReasons()) {
    if (r.name == name) return r.bit;
  }
  return 0;
}

bool IsSlowdownReason(std::uint64_t bit) {
  return bit == 0x4 || bit == 0x8 || bit == 0x10 || bit == 0x20 ||
         bit == 0x40 || bit == 0x80;
}

}  // namespace gpudoctor
