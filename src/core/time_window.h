// The window a command looks at, from its --since / --from / --to options:
// --since ends at --to (default now); --from..--to otherwise. Shared by
// `report`, the agent's /api/v1/report and `fleet`.
#pragma once

#include <string>
#include <utility>

#include "core/kernel_event.h"
#include "core/result.h"

namespace gpudoctor {

struct TimeWindowOptions {
  std::string since;  // duration; `default_since` when neither since nor from is given
  std::string from;   // RFC 3339 or local time
  std::string to;     // default now
  std::string default_since = "1h";
  // Names of the options in error messages ("--" on the command line).
  std::string option_prefix = "--";
};

// kInvalid, one line naming the option, for a bad or empty window.
Result<std::pair<WallTime, WallTime>> ResolveTimeWindow(const TimeWindowOptions& o, WallTime now);

}  // namespace gpudoctor
