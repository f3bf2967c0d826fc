#include "window/window.h"

#include "core/duration.h"
#include "core/time_format.h"
#include "core/time_parse.h"

namespace gpudoctor {

Result<Window> ResolveTimeWindow(const TimeWindowOptions& o, WallTime now) {
  const std::string& p = o.option_prefix;
  auto invalid = [](std::string m) { return Error{ErrorCode::kInvalid, std::move(m)}; };
  if (!o.since.empty() && !o.from.empty()) {
    return invalid(p + "since and " + p + "from: give one or the other");
  }
  WallTime to = now;
  if (!o.to.empty()) {
    auto t = ParseTimePoint(o.to);
    if (!t) return invalid(p + "to " + t.error().message);
    to = *t;
  }
  WallTime from;
  if (!o.from.empty()) {
    auto f = ParseTimePoint(o.from);
    if (!f) return invalid(p + "from " + f.error().message);
    from = *f;
  } else {
    auto since = ParseDuration(o.since.empty() ? o.default_since : o.since);
    if (!since) return invalid(p + "since: " + since.error().message);
    from = to - *since;
  }
  if (from >= to) {
    return invalid("the window is empty: " + p + "from " + FormatRfc3339(from) +
                   " is not before " + p + "to " + FormatRfc3339(to));
  }
  return Window{from, to}.InMilliseconds();
}

}  // namespace gpudoctor
