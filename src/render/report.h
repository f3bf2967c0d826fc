// A diagnosis report: what the renderers (JSON gpudoctor.report/v1, text,
// Markdown) are given. Plain data; renderers never read the system.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/metric_summary.h"
#include "facts/diagnosis_input.h"
#include "facts/timeline.h"
#include "rules/engine/engine.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// A file given to `analyze`, and what became of it; for `report`, a damaged
// part of the store that was left out (ok = false).
struct ReportInputFile {
  std::string path;
  std::string kind;  // "nvidia-smi-xml", "kernel-log", ...
  bool ok = true;
  std::string error;  // one line naming the file, when !ok
  std::vector<std::string> notes;  // what was read only in part, and why (one line each)
};

// diagnose stopped before its --duration (Ctrl-C, SIGTERM): the report
// covers what was sampled up to then.
struct Interruption {
  std::chrono::milliseconds sampled{0};
  std::chrono::milliseconds planned{0};
};

struct ReportContext {
  const DiagnosisInput* input = nullptr;
  const Diagnosis* diagnosis = nullptr;
  WallTime generated_at;
  Lang lang = Lang::kEn;
  std::string command = "diagnose";  // "diagnose", "analyze", "report"
  // analyze: the files given; report: the damaged parts of the store left out.
  std::vector<ReportInputFile> files;
  const Timeline* timeline = nullptr;  // report only: finding intervals, throttle time
  // report only: exact min/avg/max per bus id per field from the store (the
  // readings of a long window are per-minute averages).
  const std::map<std::string, std::map<std::string, MetricSummary>>* summaries = nullptr;
  std::optional<Interruption> interrupted;  // diagnose only
};

// One compute process over a GPU's window: who ran it and what it took.
struct ProcessSummary {
  std::uint32_t pid = 0;
  std::string name;
  std::string user, container_id, pod_uid;  // empty when unknown
  std::size_t readings = 0;                 // readings that listed it
  std::optional<MetricSummary> sm_util_percent;
  std::optional<MetricSummary> memory_util_percent;
  std::optional<double> used_memory_max_bytes;
};

// The processes the GPU's readings listed, most SM time first (then most
// memory), at most `limit`.
std::vector<ProcessSummary> SummarizeProcesses(const GpuSeries& gpu, std::size_t limit = 20);

// Per numeric status field (status --json names) min/avg/max over the GPU's
// readings; fields never read are left out.
std::map<std::string, MetricSummary> SummarizeMetrics(const GpuSeries& gpu);
// The report's summaries of this GPU: the store's exact ones when the report
// has them, otherwise SummarizeMetrics over the readings.
std::map<std::string, MetricSummary> ReportMetrics(const ReportContext& report,
                                                   const GpuSeries& gpu);

}  // namespace gpudoctor
