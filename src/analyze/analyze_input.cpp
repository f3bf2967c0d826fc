#include "analyze/analyze_input.h"

#include <algorithm>
#include <chrono>
#include <istream>
#include <nlohmann/json.hpp>
#include <utility>

#include "analyze/bug_report.h"
#include "analyze/dump_time.h"
#include "analyze/input_file.h"
#include "analyze/input_stream.h"
#include "analyze/smi_messages_input.h"
#include "collect/kernel_log_files.h"
#include "parse/kernel_events.h"
#include "parse/log_record.h"
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

// How a log's bytes are read: lines (any text format, JSON lines, logfmt),
// whole JSON documents (json-pretty, API responses), journal export records.
enum class LogShape { kLines, kJsonDocuments, kJournalExport };

// A log whose events are extracted once every dump is read, so that
// year-less stamps can take the dumps' year. Logs are streamed from their
// file then; small files already in memory (tables with pasted lines,
// UTF-16 text) keep their text.
struct PendingLog {
  std::size_t file = 0;  // index into AnalyzeResult::files
  bool bug_report = false;
  LogShape shape = LogShape::kLines;
  std::optional<std::string> text;  // in memory; nullopt: stream the file
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
    g.logs.push_back(PendingLog{index, false, LogShape::kLines, std::move(content)});
  }
}

void AddBugReportFacts(BugReportFacts& facts, AnalyzedFile& file, Gathered& g) {
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

// nvidia-smi's messages in a kernel log (a shell session pasted with dmesg),
// wherever they stand in it: the scanner's prefilter has their words among
// its needles, so the streaming pass finds them at no extra cost.
void AddLogSmiMessages(const std::vector<NvsmiMessage>& messages, AnalyzedFile& file,
                       Gathered& g) {
  if (auto reading = ReadingFromMessages(messages)) {
    file.gpu_count = reading->gpus.size();
    g.readings.push_back(Reading{std::move(*reading), std::nullopt});
  }
}

// Formats that are parsed whole: read whole, within the limit, and say so.
Result<std::string> ReadWhole(const std::string& path, InputKind kind) {
  auto content = ReadInputFile(path, kDefaultLogLimitBytes);
  if (!content && content.error().message.find("limit") != std::string::npos) {
    return Error{content.error().code,
                 content.error().message + " (" + InputKindName(kind) +
                     " files are read whole; kernel logs, journals and bug reports are streamed)"};
  }
  return content;
}

void AddContent(std::string content, std::size_t index, AnalyzedFile& file, Gathered& g) {
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
    case InputKind::kKernelLog:
      g.logs.push_back(PendingLog{index, file.kind == InputKind::kBugReport, LogShape::kLines,
                                  std::move(content)});
      file.ok = true;
      return;
    case InputKind::kUnknown:
      file.error = file.path + ": not an nvidia-smi, bug report or kernel log file";
      return;
  }
}

// Multi-line JSON (json-pretty, an API response) rather than one object a line.
bool IsJsonDocument(std::string_view head) {
  std::size_t i = head.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos) return false;
  if (head[i] == '[') {  // a JSON array, not "[  123.456] ..." (dmesg)
    std::size_t j = head.find_first_not_of(" \t\r\n", i + 1);
    return j != std::string_view::npos && (head[j] == '{' || head[j] == '[' || head[j] == '"');
  }
  if (head[i] != '{') return false;
  std::string_view first = head.substr(i, head.find('\n', i) - i);
  return !nlohmann::json::accept(first);
}

// Tells the file's kind from its beginning; dumps are read whole now, logs
// and bug reports later, streamed.
void AddFile(const std::string& path, std::size_t index, AnalyzedFile& file, Gathered& g) {
  auto head = ReadHead(path, kDetectHeadBytes);
  if (!head) {
    file.error = head.error().message;
    return;
  }
  if (head->empty()) {
    std::error_code ec;
    bool compressed = std::filesystem::file_size(path, ec) > 0 && !ec;
    file.error = path + (compressed ? ": empty file (once decompressed)" : ": empty file");
    return;
  }
  if (Utf16ToUtf8(*head)) {  // UTF-16 (PowerShell redirection): converted whole
    auto content = ReadInputFile(path, kDefaultLogLimitBytes);
    if (!content) {
      file.error = content.error().message;
      return;
    }
    file.kind = DetectInputKind(*content);
    AddContent(std::move(*content), index, file, g);
    return;
  }
  if (LooksLikeJournalExport(*head)) {
    file.kind = InputKind::kKernelLog;
  } else {
    file.kind = DetectInputKind(*head);
  }
  if (file.kind == InputKind::kKernelLog || file.kind == InputKind::kBugReport) {
    LogShape shape = LooksLikeJournalExport(*head) ? LogShape::kJournalExport
                     : IsJsonDocument(*head)       ? LogShape::kJsonDocuments
                                                   : LogShape::kLines;
    g.logs.push_back(PendingLog{index, file.kind == InputKind::kBugReport, shape, std::nullopt});
    file.ok = true;
    return;
  }
  if (file.kind == InputKind::kUnknown) {
    AddContent({}, index, file, g);
    return;
  }
  auto content = ReadWhole(path, file.kind);
  if (!content) {
    file.error = content.error().message;
    return;
  }
  AddContent(std::move(*content), index, file, g);
}

int YearOf(WallTime t) {
  return static_cast<int>(
      std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(t)).year());
}

// Feeds one log to the scanner: in memory or streamed, lines or records.
// A bug report passes only its kernel sections, and its facts to `facts`.
Result<bool> ScanLog(const PendingLog& log, const std::string& path, KernelEventScanner& scanner,
                     BugReportFacts& facts) {
  BugReportReader report;
  BugReportKernelFilter kernel_sections;
  std::size_t line_no = 1;
  auto on_chunk = [&](std::string_view chunk) {
    if (!log.bug_report) {
      line_no += ScanKernelLogBuffer(chunk, path, line_no, scanner);
      return;
    }
    while (!chunk.empty()) {
      std::size_t nl = chunk.find('\n');
      std::string_view line = chunk.substr(0, nl);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      report.Line(line);
      if (kernel_sections.IsKernelLine(line)) {
        scanner.AddText(line, SourceRef{path, line_no});
      } else {
        scanner.Break();
      }
      ++line_no;
      chunk.remove_prefix(nl == std::string_view::npos ? chunk.size() : nl + 1);
    }
  };
  std::size_t record_no = 0;
  auto on_record = [&](const LogRecord& rec) {
    scanner.AddRecord(rec, SourceRef{path, ++record_no});
  };
  Result<bool> done = true;
  if (log.text) {
    on_chunk(*log.text);
  } else {
    InputStream in;
    if (auto r = in.Open(path); !r) return r.error();
    if (log.shape == LogShape::kJsonDocuments) {
      InputStreamBuf buf(in);
      std::istream stream(&buf);
      JsonRecordsResult r = ReadJsonRecords(stream, on_record);
      if (!buf.error().empty()) return Error{ErrorCode::kCorrupt, buf.error()};
      if (!r.error.empty() && r.records == 0) {  // not JSON after all: read it as lines
        PendingLog as_lines = log;
        as_lines.shape = LogShape::kLines;
        return ScanLog(as_lines, path, scanner, facts);
      }
    } else if (log.shape == LogShape::kJournalExport) {
      JournalExportReader reader(on_record);
      auto r = StreamLines(in, [&](std::string_view chunk) { reader.Feed(chunk); });
      if (!r) return r.error();
      reader.Finish();
    } else if (auto r = StreamLines(in, on_chunk); !r) {
      return r.error();
    }
  }
  if (log.bug_report) facts = report.Finish();
  return done;
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

void AddLogs(Gathered& g, std::vector<AnalyzedFile>& files, DiagnosisInput& input) {
  if (g.logs.empty()) return;
  int year_hint = 0;
  for (const Reading& r : g.readings) {
    if (r.time) year_hint = std::max(year_hint, YearOf(*r.time));
  }
  KernelFacts kernel;
  for (const PendingLog& log : g.logs) {
    AnalyzedFile& file = files[log.file];
    ExtractOptions opts;
    opts.time.year = year_hint;
    if (log.bug_report) {
      // The report's Date line comes first: read it before the scan starts.
      auto head = log.text ? Result<std::string>(log.text->substr(0, kDetectHeadBytes))
                           : ReadHead(file.path, kDetectHeadBytes);
      if (head) {
        BugReportReader prologue;
        for (std::string_view rest = *head; !rest.empty();) {
          std::size_t nl = rest.find('\n');
          prologue.Line(rest.substr(0, nl));
          rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
        }
        if (int y = prologue.Finish().date_year) opts.time.year = y;
      }
    }
    KernelEventScanner scanner(opts);
    BugReportFacts facts;
    if (auto r = ScanLog(log, file.path, scanner, facts); !r) {
      file.ok = false;
      file.error = r.error().message;
      continue;
    }
    if (log.bug_report) {
      AddBugReportFacts(facts, file, g);
    } else {
      AddLogSmiMessages(scanner.nvsmi_messages(), file, g);
    }
    std::vector<KernelEvent> events = scanner.Finish();
    file.event_count = events.size();
    const GpuLineStats& stats = scanner.gpu_line_stats();
    file.undecoded_lines = stats.undecoded;
    if (stats.decoded == 0 && stats.undecoded > 0) {
      kernel.undecoded.push_back(UndecodedLog{file.path, stats.undecoded,
                                              stats.first_undecoded.line,
                                              stats.first_undecoded_text});
    }
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
    result.files.push_back(AnalyzedFile{paths[i], InputKind::kUnknown, false, {}, 0, 0, 0});
    AddFile(paths[i], i, result.files.back(), g);
  }
  // Bug reports add readings as they are streamed: logs first, then the readings.
  AddLogs(g, result.files, result.input);
  AddReadings(g.readings, result.input);
  if (!result.input.driver_version) result.input.driver_version = g.proc_driver_version;
  result.input.hostname = g.hostname;
  result.input.kernel_release = g.kernel_release;
  return result;
}

}  // namespace gpudoctor
