// Clock event (throttle) reason bits as NVML defines them, and their names in
// status --json.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct ClockReason {
  std::uint64_t bit;
  std::string_view name;  // e.g. "sw_power_cap"
  std::string_view text;  // e.g. "SW power cap"
};

// All known reasons, in bit order.
const std::vector<ClockReason>& AllClockReasons();
// Names of the bits set in mask; unknown bits become "unknown_0x...".
std::vector<std::string> ClockReasonNames(std::uint64_t mask);
// The bit for a name, 0 when unknown.
std::uint64_t ClockReasonBit(std::string_view name);
// True when mask holds a reason that slows a GPU that has work (anything but
// gpu_idle, applications_clocks_setting and display_clock_setting).
bool IsSlowdownReason(std::uint64_t bit);

}  // namespace gpudoctor
