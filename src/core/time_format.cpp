#include "core/time_format.h"

#include <ctime>

#include <fmt/format.h>

namespace gpudoctor {

std::string FormatRfc3339(WallTime time) {
  using namespace std::chrono;
  auto ms = duration_cast<milliseconds>(time.time_since_epoch()).count();
  std::int64_t secs = ms / 1000;
  int frac = static_cast<int>(ms % 1000);
  if (frac < 0) {
    frac += 1000;
    --secs;
  }
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900,
                                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (frac != 0) out += fmt::format(".{:03}", frac);
  return out + "Z";
}

}  // namespace gpudoctor
