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
  std::string what;                 // finding id, or event kind ("xid 79")
  Severity severity = Severity::kInfo;  // findings
  std::vector<std::string> gpus;    // bus ids; empty: host-wide
  std::string text;                 // title or event message, in the report's language
};

// Finding intervals and timed events, by start time. Empty without a timeline.
std::vector<TimelineRow> TimelineRows(const ReportContext& report);

// "28 min 45 s", "3 h 02 min", "12 s" (zh: "28 分 45 秒", ...).
std::string FormatSpan(double seconds, Lang lang);

// One line per GPU with throttling: "sw_thermal_slowdown 28 min 45 s (40 %)".
std::vector<std::pair<std::string, std::string>> ThrottleLines(const ReportContext& report);

// The JSON `timeline` list: {type: finding|event, ...} in time order.
nlohmann::ordered_json TimelineToJson(const ReportContext& report);

}  // namespace gpudoctor
