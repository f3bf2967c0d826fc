#include "core/duration.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace gpudoctor {

Result<std::chrono::milliseconds> ParseDuration(std::string_view text,
                                                std::chrono::milliseconds minimum) {
  auto bad = [&](const std::string& why) {
    return Error{ErrorCode::kInvalid,
                 "invalid duration '" + std::string(text) + "': " + why +
                     " (use e.g. 500ms, 10s, 5m, 2h, 7d)"};
  };
  if (text.empty()) return bad("empty");
  std::size_t unit_at = 0;
  while (unit_at < text.size() &&
         ((text[unit_at] >= '0' && text[unit_at] <= '9') || text[unit_at] == '.')) {
    ++unit_at;
  }
  if (unit_at == 0) return bad("no number");
  double number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + unit_at, number);
  if (ec != std::errc() || ptr != text.data() + unit_at || !std::isfinite(number)) {
    return bad("not a number");
  }
  std::string_view unit = text.substr(unit_at);
  double ms_per_unit = 0;
  if (unit.empty() || unit == "s") ms_per_unit = 1000;
  else if (unit == "ms") ms_per_unit = 1;
  else if (unit == "m") ms_per_unit = 60e3;
  else if (unit == "h") ms_per_unit = 3600e3;
  else if (unit == "d") ms_per_unit = 86400e3;
  else return bad("unknown unit");
  double ms = number * ms_per_unit;
  if (ms < 1 || ms < static_cast<double>(minimum.count())) {
    const auto at_least = minimum.count() % 1000 == 0 && minimum.count() >= 1000
                              ? std::to_string(minimum.count() / 1000) + "s"
                              : std::to_string(std::max<std::int64_t>(1, minimum.count())) + "ms";
    return bad("must be at least " + at_least);
  }
  if (ms > 3650.0 * 86400e3) return bad("longer than ten years");
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(ms)));
}

}  // namespace gpudoctor
