// Pure parser of /proc/vmstat ("pswpin 123" per line): cumulative event
// counters since boot.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

struct VmStat {
  std::map<std::string, std::uint64_t, std::less<>> counters;
  std::optional<std::uint64_t> Get(std::string_view key) const;
};

// Lines that do not hold "name number" are skipped; error when none parses.
Result<VmStat> ParseVmstat(std::string_view text);

// Events per second of one counter between two readings `seconds` apart;
// std::nullopt when either reading lacks it or no time passed. A counter that
// went backwards gives 0.
std::optional<double> CounterRatePerSecond(const VmStat& earlier, const VmStat& later,
                                           std::string_view key, double seconds);

}  // namespace gpudoctor
