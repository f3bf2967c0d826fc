// What happened over a recorded window, beyond one diagnosis: when each
// finding started and ended (the agent evaluates the rules continuously), and
// how long each GPU spent throttled per clock-event reason. `report` fills it
// from the store; the JSON, text, Markdown and HTML renderers show it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_event.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// One stretch of time during which a finding was active.
struct FindingInterval {
  std::string finding_id;          // "thermal.slowdown"
  Severity severity = Severity::kWarning;  // the worst seen during the interval
  std::vector<std::string> gpus;   // pci bus ids; empty: host-wide
  Text title;                      // the finding's title when it was last seen
  WallTime start;
  std::optional<WallTime> end;     // nullopt: still active at the window's end
};

// Seconds one GPU spent with a clock-event reason active, per reason name as
// ClockReasonNames gives them ("sw_thermal_slowdown", "hw_power_brake", ...).
struct ThrottleTime {
  std::string pci_bus_id;
  std::map<std::string, double> seconds_by_reason;
  double sampled_seconds = 0;  // the time covered by samples, for a share
};

struct Timeline {
  std::vector<FindingInterval> findings;  // by start time
  std::vector<ThrottleTime> throttled;    // one per GPU with samples
};

}  // namespace gpudoctor
