#include "analyze/analyze_input.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "analyze/bug_report.h"
#include "analyze/dump_time.h"
#include "analyze/input_file.h"
#include "analyze/smi_messages_input.h"
#include "collect/kernel_log_files.h"
#include "parse/kernel_events.h"
#include "parse/nvsmi_messages.h"
#include "parse/nvsmi_table.h"
#include "parse/nvsmi_text.h"
#include "parse/nvsmi_xml.h"

namespace gpudoctor {
namespace {

struct Reading {
  SystemStatus status;
  std::optional<WallTime> time;
};

// A log whose events are extracted once every dump is read, so that
// year-less stamps can take the dumps' year.
struct PendingLog {
  std::size_t file = 0;        // index into AnalyzeResult::files
  std::string text;            // a whole kernel log, or empty when `lines` is used
  std::vector<LogLine> lines;  // the kernel sections of a bug report
  int year = 0;                // from the bug report's Date line; 0: unknown
};

struct Gathered {
  std::vector<Reading> readings;
  std::vector<PendingLog> logs;
  std::optional<std::string> proc_driver_version;
  std::string hostname, kernel_release;
};

void AddDump(Result<SystemStatus> status, std::optional<WallTime> time, AnalyzedFile& file,
             Gathered& g) {
  if (!status) {
    file.error = status.error().message;
    return;
  }
  file.ok = true;
  file.gpu_count = status->gpus.size();
  g.readings.push_back(Reading{std::move(*status), time});
}

// One reading per table (a file may hold several runs, each with its date);
// the file fails only when no table in it parses. Kernel-log lines pasted
// with the table (an Xid under it) are read as a log too.
void AddTables(std::string& content, std::size_t index, AnalyzedFile& file, Gathered& g) {
  std::optional<Error> first_error;
  for (std::string_view table : SplitNvidiaSmiTables(content)) {
    auto status = ParseNvidiaSmiTable(table, file.path);
    if (!status) {
      if (!first_error) first_error = status.error();
      continue;
    }
    file.ok = true;
    AddLostGpusFromMessages(FindNvidiaSmiMessages(table), *status);
    file.gpu_count = std::max(file.gpu_count, status->gpus.size());
    g.readings.push_back(Reading{std::move(*status), TableDumpTime(table)});
  }
  if (!file.ok) {
    file.error = first_error ? first_error->message : file.path + ": no nvidia-smi table found";
    return;
  }
  if (MentionsGpuLogWords(content)) {
    std::erase(content, '\r');
    g.logs.push_back(PendingLog{index, std::move(content), {}, 0});
  }
}

void AddBugReport(std::string_view content, std::size_t index, AnalyzedFile& file, Gathered& g) {
  std::vector<LogLine> lines = SplitLogLines(content, file.path);
  BugReportFacts facts = ReadBugReportFacts(lines);
  for (const std::string& text : facts.smi_query_texts) {
    auto status = ParseNvidiaSmiText(text, file.path);
    if (status) {
      AddLostGpusFromMessages(FindNvidiaSmiMessages(text), *status);
      file.gpu_count += status->gpus.size();
      g.readings.push_back(Reading{std::move(*status), TextDumpTime(text)});
    } else if (std::string why = FirstNonEmptyLine(text); !why.empty()) {
      // nvidia-smi ran and failed ("NVIDIA-SMI has failed because it couldn't
      // communicate with the NVIDIA driver"): that is evidence in itself.
      SystemStatus failed;
      failed.nvml_error = why;
      g.readings.push_back(Reading{std::move(failed), std::nullopt});
    }
  }
  if (facts.proc_driver_version && !g.proc_driver_version)
    g.proc_driver_version = facts.proc_driver_version;
  if (!facts.hostname.empty() && g.hostname.empty()) {
    g.hostname = facts.hostname;
    g.kernel_release = facts.kernel_release;
  }
  g.logs.push_back(PendingLog{index, {}, BugReportKernelLines(lines), facts.date_year});
  file.ok = true;
}

// A -q dump, or nvidia-smi's messages alone ("No devices were found").
void AddSmiText(std::string_view content, AnalyzedFile& file, Gathered& g) {
  std::vector<NvsmiMessage> messages = FindNvidiaSmiMessages(content);
  auto status = ParseNvidiaSmiText(content, file.path);
  if (status) {
    AddLostGpusFromMessages(messages, *status);
  } else if (auto only = ReadingFromMessages(messages)) {
    status = std::move(*only);
  }
  AddDump(std::move(status), TextDumpTime(content), file, g);
}

// nvidia-smi's messages in a kernel log (a shell session pasted with dmesg).
void AddLogSmiMessages(std::string_view content, AnalyzedFile& file, Gathered& g) {
  if (auto reading = ReadingFromMessages(FindNvidiaSmiMessages(content))) {
    file.gpu_count = reading->gpus.size();
    g.readings.push_back(Reading{std::move(*reading), std::nullopt});
  }
}

void AddFile(std::string content, std::size_t index, AnalyzedFile& file, Gathered& g) {
  file.kind = DetectInputKind(content);
  switch (file.kind) {
    case InputKind::kNvidiaSmiXml:
      AddDump(ParseNvidiaSmiXml(content, file.path), XmlDumpTime(content), file, g);
      return;
    case InputKind::kNvidiaSmiText:
      AddSmiText(content, file, g);
      return;
    case InputKind::kNvidiaSmiTable:
      AddTables(content, index, file, g);
      return;
    case InputKind::kBugReport:
      AddBugReport(content, index, file, g);
      return;
    case InputKind::kKernelLog:
      // CRLF files: the scanner expects '\n' line ends.
      std::erase(content, '\r');
      AddLogSmiMessages(content, file, g);
      g.logs.push_back(PendingLog{index, std::move(content), {}, 0});
      file.ok = true;
      return;
    case InputKind::kUnknown:
      file.error = file.path + ": not an nvidia-smi, bug report or kernel log file";
      return;
  }
}

int YearOf(WallTime t) {
  return static_cast<int>(
      std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(t)).year());
}

std::vector<KernelEvent> ExtractEvents(const PendingLog& log, const std::string& path,
                                       int year_hint) {
  ExtractOptions opts;
  opts.time.year = log.year ? log.year : year_hint;
  if (!log.lines.empty() || log.text.empty()) return ExtractKernelEvents(log.lines, opts);
  KernelEventScanner scanner(opts);
  ScanKernelLogBuffer(log.text, path, 1, scanner);
  return scanner.Finish();
}

// Known times first, in order; events without a time keep their file order after them.
void SortEvents(std::vector<KernelEvent>& events) {
  std::stable_sort(events.begin(), events.end(), [](const KernelEvent& a, const KernelEvent& b) {
    if (a.time.has_value() != b.time.has_value()) return a.time.has_value();
    return a.time && *a.time < *b.time;
  });
}

void Widen(DiagnosisInput& input, std::optional<WallTime> t) {
  if (!t) return;
  if (!input.window_from || *t < *input.window_from) input.window_from = t;
  if (!input.window_to || *t > *input.window_to) input.window_to = t;
}

void AddReadings(std::vector<Reading>& readings, DiagnosisInput& input) {
  // AddReading keeps the newest reading's versions and NVML state: feed them
  // oldest first, undated dumps before dated ones.
  std::stable_sort(readings.begin(), readings.end(), [](const Reading& a, const Reading& b) {
    if (a.time.has_value() != b.time.has_value()) return b.time.has_value();
    return a.time && *a.time < *b.time;
  });
  for (const Reading& r : readings) {
    AddReading(input, r.status, r.time);
    Widen(input, r.time);
  }
}

void AddLogs(const Gathered& g, std::vector<AnalyzedFile>& files, DiagnosisInput& input) {
  if (g.logs.empty()) return;
  int year_hint = 0;
  for (const Reading& r : g.readings) {
    if (r.time) year_hint = std::max(year_hint, YearOf(*r.time));
  }
  KernelFacts kernel;
  for (const PendingLog& log : g.logs) {
    AnalyzedFile& file = files[log.file];
    std::vector<KernelEvent> events = ExtractEvents(log, file.path, year_hint);
    file.event_count = events.size();
    kernel.sources.push_back(SourceStatus{file.path, true, {}});
    for (const KernelEvent& e : events) {
      Widen(input, e.time);
      Widen(input, e.last_time);
    }
    kernel.events.insert(kernel.events.end(), std::make_move_iterator(events.begin()),
                         std::make_move_iterator(events.end()));
  }
  SortEvents(kernel.events);
  input.kernel = std::move(kernel);
}

}  // namespace

AnalyzeResult AnalyzeFiles(const std::vector<std::string>& paths, const Config& config) {
  AnalyzeResult result;
  result.input.config = config;
  result.input.live = false;
  Gathered g;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    result.files.push_back(AnalyzedFile{paths[i], InputKind::kUnknown, false, {}, 0, 0});
    AnalyzedFile& file = result.files.back();
    auto content = ReadInputFile(paths[i], kDefaultLogLimitBytes);
    if (!content) {
      file.error = content.error().message;
      continue;
    }
    AddFile(std::move(*content), i, file, g);
  }
  AddReadings(g.readings, result.input);
  AddLogs(g, result.files, result.input);
  if (!result.input.driver_version) result.input.driver_version = g.proc_driver_version;
  result.input.hostname = g.hostname;
  result.input.kernel_release = g.kernel_release;
  return result;
}

}  // namespace gpudoctor
