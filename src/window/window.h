// The one window of time every front-end looks at, and how a command's
// --since / --from / --to options give it.
//
// A window is (from, to]: a reading or event taken at `to` is in it, one
// taken at `from` is not. Every source's newest evidence sits at the end of
// the window it is read for -- the agent's latest sample, a Prometheus range
// read laid back from `to` (its last point is at `to`, each point standing
// for the step before it), a report's window ending now -- so the end
// belongs in; the start belongs to the window before, so windows laid end to
// end never share a reading.
//
// A reading without a time is in no window. An event without a time (a
// pasted kernel log line without a stamp) is in a window that covers the
// whole of what it came with, and in no shorter stretch of it: which stretch
// holds it is unknown (window/cut.h applies both rules).
#pragma once

#include <chrono>
#include <string>

#include "core/kernel_event.h"
#include "core/result.h"

namespace gpudoctor {

struct Window {
  WallTime from;
  WallTime to;

  bool Holds(WallTime t) const { return t > from && t <= to; }
  // True when `inner` lies wholly inside this window.
  bool Covers(const Window& inner) const { return from <= inner.from && inner.to <= to; }
  std::chrono::duration<double> length() const { return to - from; }

  // The window that holds exactly the instants first..last (both in).
  static Window Spanning(WallTime first, WallTime last) {
    return Window{first - WallTime::duration(1), last};
  }

  // Both ends down to whole milliseconds: the resolution of the store's
  // and Prometheus' times, so that a sample at the window's end, as they
  // give it back, is still in it.
  Window InMilliseconds() const {
    return Window{std::chrono::floor<std::chrono::milliseconds>(from),
                  std::chrono::floor<std::chrono::milliseconds>(to)};
  }

  friend bool operator==(const Window&, const Window&) = default;
};

struct TimeWindowOptions {
  std::string since;  // duration; `default_since` when neither since nor from is given
  std::string from;   // RFC 3339 or local time
  std::string to;     // default now
  std::string default_since = "1h";
  // Names of the options in error messages ("--" on the command line).
  std::string option_prefix = "--";
};

// --since ends at --to (default now); --from..--to otherwise. kInvalid, one
// line naming the option, for a bad or empty window. Shared by `report`,
// the agent's /api/v1/report and `fleet`.
Result<Window> ResolveTimeWindow(const TimeWindowOptions& o, WallTime now);

}  // namespace gpudoctor
