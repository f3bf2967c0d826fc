// The diagnosis of a recorded window: reads what the agent stored between
// two times, runs the rules over it and keeps what a report shows (the
// timeline and the store's exact summaries). Shared by `gpudoctor report` and
// the agent's /api/v1/report.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/result.h"
#include "render/report.h"
#include "store/store.h"

namespace gpudoctor {

struct RecordedWindowRequest {
  std::string since;              // duration; default 1h when neither since nor from is given
  std::string from;               // RFC 3339 or local time
  std::string to;                 // default now
  std::vector<std::string> gpus;  // index, bus id or UUID; empty: all
  std::string data_dir;
  Config config;
  // Names of the options in error messages ("--since" on the command line,
  // "since" for the HTTP query).
  std::string option_prefix = "--";
};

// What a report of the window is made from; keep it alive while a
// ReportContext from Context() is used (it points into it).
struct RecordedReport {
  WallTime from;
  WallTime to;
  DiagnosisInput input;
  Diagnosis diagnosis;
  StoredWindow stored;
  std::string store_path;  // <data_dir>/gpudoctor.db (or the Prometheus URL)
  std::string source_kind = "agent-store";  // "prometheus" for report --prometheus
  // The report's view; each damaged part of the window left out is an input
  // that was not read (ok = false, kind "agent-store").
  ReportContext Context(WallTime generated_at, Lang lang) const;
};

// One story per window: each condition the timeline shows still active at
// the window's end is judged again over the stretch since it began (the
// rules over the whole window dilute a condition that holds over part of
// it), and the report's findings and verdicts carry it at least at that
// severity, with that stretch's title.
void JudgeActiveStretches(RecordedReport& report);

// What a recorded report's diagnosis gets after DiagnoseWindow (unfolded)
// and its timeline: the active stretches judged, then the findings folded
// across GPUs for a reader. `report` and `report --prometheus` both.
void FinishRecordedDiagnosis(RecordedReport& report);

// Throttling findings (thermal.slowdown, power.brake, power.cap,
// clocks.hw_slowdown) of the agent's timeline start at the first sample of
// the run of samples with their clock-event reason that reaches the
// interval's start and end at the last sample with it: the agent closes a
// finding a sliding window after the condition ended.
void EndAtTheLastSample(const DiagnosisInput& input, Timeline& timeline);

// Errors are one line: kInvalid for a bad window or GPU, kNotFound when
// there is no store or nothing was recorded in the window, kCorrupt when all
// that was recorded in it is damaged, others from the store.
Result<std::unique_ptr<RecordedReport>> BuildRecordedReport(const RecordedWindowRequest& request,
                                                            WallTime now);

}  // namespace gpudoctor
