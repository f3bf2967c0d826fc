#include "parse/proc_vmstat.h"

#include "parse/proc_text.h"

namespace gpudoctor {

std::optional<std::uint64_t> VmStat::Get(std::string_view key) const {
  auto it = counters.find(key);
  if (it == counters.end()) return std::nullopt;
  return it->second;
}

Result<VmStat> ParseVmstat(std::string_view text) {
  VmStat stat;
  for (std::string_view line : SplitLines(text)) {
    auto words = SplitWords(line);
    if (words.size() != 2) continue;
    auto value = ParseUnsigned(words[1]);
    if (!value) continue;
    stat.counters[std::string(words[0])] = *value;
  }
  if (stat.counters.empty()) return Error{ErrorCode::kCorrupt, "/proc/vmstat: no counters"};
  return stat;
}

std::optional<double> CounterRatePerSecond(const VmStat& earlier, const VmStat& later,
                                           std::string_view key, double seconds) {
  auto a = earlier.Get(key);
  auto b = later.Get(key);
  if (!a || !b || seconds <= 0) return std::nullopt;
  if (*b < *a) return 0.0;
  return static_cast<double>(*b - *a) / seconds;
}

}  // namespace gpudoctor
