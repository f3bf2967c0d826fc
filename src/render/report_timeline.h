// The timeline of a recorded window (`report`): finding intervals and events
// in time order, and the time each GPU spent throttled per reason; shared by
// the JSON, text and Markdown renderers.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "render/report.h"

namespace gpudoctor {

struct TimelineRow {
  WallTime start;
  std::optional<WallTime> end;      // finding intervals; nullopt: still active or an event
  bool is_finding = false;
  const StateChange* change = nullptr;  // a port's or a GPU fabric's change of state
  std::string what;                 // finding id, event kind ("xid 79"), or change
                                    // ("rdma_port flap", "nvlink_fabric")
  Severity severity = Severity::kInfo;  // findings
  std::vector<std::string> gpus;    // bus ids; empty: host-wide
  std::string text;                 // title or event message, in the report's language
  // Findings: the strictest recovery action of the interval; nullopt: not
  // recorded (a store before version 4).
  std::optional<RecoveryAction> recommended;
  std::string recovery;  // " (recovery: reboot the node)" to follow `text`; empty: none
};

// Finding intervals and timed events, by start time. Empty without a timeline.
std::vector<TimelineRow> TimelineRows(const ReportContext& report);

// "28 min 45 s", "3 h 02 min", "12 s" (zh: "28 分 45 秒", ...).
std::string FormatSpan(double seconds, Lang lang);

// One line per GPU with throttling: "sw_thermal_slowdown 28 min 45 s (40 %)".
std::vector<std::pair<std::string, std::string>> ThrottleLines(const ReportContext& report);

// "mlx5_0 port 1: 4: ACTIVE → 1: DOWN (down 2 min 10 s)".
std::string ChangeText(const StateChange& change, Lang lang);

// The JSON `timeline` list: {type: finding|event|state_change, ...} in time
// order.
nlohmann::ordered_json TimelineToJson(const ReportContext& report);

// The JSON `rdma_ports` list of a recorded window: per port its flaps,
// drops, error counters' rises and the steps with errors (errors per
// second); null without a timeline.
nlohmann::ordered_json RdmaPortsToJson(const ReportContext& report);

}  // namespace gpudoctor
