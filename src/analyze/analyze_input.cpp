#include "analyze/analyze_input.h"

#include <algorithm>
#include <chrono>
#include <istream>
#include <memory>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <utility>

#include "analyze/bug_report.h"
#include "analyze/dump_time.h"
#include "analyze/input_file.h"
#include "analyze/input_stream.h"
#include "analyze/kernel_scan_ahead.h"
#include "analyze/nvlink_merge.h"
#include "analyze/paste.h"
#include "analyze/smi_messages_input.h"
#include "collect/kernel_log_files.h"
#include "parse/kernel_events.h"
#include "parse/log_record.h"
#include "parse/nvsmi_messages.h"
#include "parse/nvsmi_nvlink.h"
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
  std::optional<std::string> text;  // in memory; else read from `stream`
  std::shared_ptr<InputStream> stream;  // open at the start of the member
  std::string head;  // its first kDetectHeadBytes
  bool reopenable = false;  // a file given by path (not a pipe, not a member)
  // Its beginning told no kind: a log when any of its lines is recognised
  // (a stamp, a record, an event), refused when none is.
  bool kind_from_lines = false;
};

// An archive given to analyze: its members are read after the other files'
// dumps (so that year-less stamps can take their year), each as a file of
// its own named "ARCHIVE:MEMBER".
struct PendingArchive {
  std::size_t file = 0;
  std::shared_ptr<InputStream> stream;  // NextMember not yet called
};

PendingLog InMemoryLog(std::size_t file, bool bug_report, std::string text) {
  PendingLog log;
  log.file = file;
  log.bug_report = bug_report;
  log.text = std::move(text);
  return log;
}

struct Gathered {
  std::vector<Reading> readings;
  std::vector<PendingLog> logs;
  std::vector<PendingArchive> archives;
  std::vector<SystemStatus> nvlink_outputs;  // nvidia-smi nvlink -s / -e, merged at the end
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
void AddTables(std::string& content, std::size_t index, AnalyzedFile& file, Gathered& g,
               bool with_log = true) {
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
  if (with_log && MentionsGpuLogWords(content)) {
    g.logs.push_back(InMemoryLog(index, false, std::move(content)));
  }
}

void AddNote(AnalyzedFile& file, const std::string& note) {
  if (!note.empty() && std::find(file.notes.begin(), file.notes.end(), note) == file.notes.end())
    file.notes.push_back(note);
}

void AddBugReportFacts(BugReportFacts& facts, AnalyzedFile& file, Gathered& g) {
  for (const std::string& text : facts.smi_query_texts) {
    std::vector<std::string> notes;
    auto status = ParseNvidiaSmiText(text, file.path, &notes);
    for (const std::string& note : notes) AddNote(file, note);
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
  std::vector<std::string> notes;
  auto status = ParseNvidiaSmiText(content, file.path, &notes);
  for (const std::string& note : notes) AddNote(file, note);
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

void AddNvlinkOutput(std::string_view content, AnalyzedFile& file, Gathered& g) {
  std::vector<std::string> notes;
  auto status = ParseNvidiaSmiNvlink(content, file.path, &notes);
  for (const std::string& note : notes) AddNote(file, note);
  if (!status) {
    file.error = status.error().message;
    return;
  }
  file.ok = true;
  file.gpu_count = status->gpus.size();
  g.nvlink_outputs.push_back(std::move(*status));
}

std::string SizeText(std::uint64_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

// Formats that are parsed whole: refused from their size before they are
// read when it is known (a regular file, gzip's stated size), else read
// within the limit.
Result<std::string> ReadWhole(InputStream& in, InputKind kind, const std::string& name) {
  const std::string why = " (" + std::string(InputKindName(kind)) +
                          " files are read whole; kernel logs, journals and bug reports are "
                          "streamed)";
  std::optional<std::uint64_t> size = in.format().empty() ? in.file_size() : std::nullopt;
  // gzip's trailer states the size (modulo 4 GiB), unless the file was cut
  // short: trusted only within deflate's largest ratio (1032:1).
  if (auto stated = in.gzip_stated_size(); stated && in.file_size() && *stated <= *in.file_size() * 1032)
    size = stated;
  if (size && *size > kWholeFileLimitBytes) {
    return Error{ErrorCode::kInvalid, name + ": refused unread: " + SizeText(*size) +
                                          (in.format().empty() ? "" : " once decompressed") +
                                          ", more than the " + SizeText(kWholeFileLimitBytes) +
                                          " limit" + why};
  }
  auto content = ReadAll(in, kWholeFileLimitBytes);
  if (!content && content.error().message.find("limit") != std::string::npos)
    return Error{content.error().code, content.error().message + why};
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
    case InputKind::kNvidiaSmiNvlink:
      AddNvlinkOutput(content, file, g);
      return;
    case InputKind::kBugReport:
    case InputKind::kKernelLog:
      g.logs.push_back(InMemoryLog(index, file.kind == InputKind::kBugReport, std::move(content)));
      file.ok = true;
      return;
    case InputKind::kArchive:  // an archive inside UTF-16 text cannot be
    case InputKind::kUnknown:
      file.error = file.path + ": not an nvidia-smi, bug report or kernel log file";
      return;
  }
}

// A small text with what a ticket wraps a tool's output in (paste.h): each
// block is read as its own kind, the log lines of the whole text as a log.
// False, and nothing done, when the text has no such wrapping, when its
// kind has a reader of its own that takes it whole (XML, a bug report), or
// when it is a log and every block is too (the streaming path reads it).
bool AddPaste(const std::string& text, std::size_t index, AnalyzedFile& file, Gathered& g) {
  Paste paste = ReadPaste(text);
  if (!paste.Marked()) return false;
  const InputKind whole = DetectInputKind(text);
  if (whole == InputKind::kNvidiaSmiXml || whole == InputKind::kBugReport) return false;
  struct Part {
    InputKind kind;
    const PasteBlock* block;
  };
  std::vector<Part> parts;
  bool any_log = whole == InputKind::kKernelLog;
  for (const PasteBlock& b : paste.blocks) {
    InputKind k = DetectInputKind(b.text);
    if (k == InputKind::kKernelLog || k == InputKind::kBugReport) {
      any_log = true;
    } else if (k != InputKind::kUnknown && k != InputKind::kArchive) {
      parts.push_back(Part{k, &b});
    }
  }
  if (parts.empty() && (whole == InputKind::kKernelLog || whole == InputKind::kUnknown))
    return false;
  std::vector<std::string> read, errors, notes;
  std::size_t gpus = 0;
  for (const Part& p : parts) {
    AnalyzedFile one{file.path, p.kind, false, {}, 0, 0, 0, {}};
    std::string content = p.block->text;
    if (p.kind == InputKind::kNvidiaSmiTable) {
      AddTables(content, index, one, g, /*with_log=*/false);
    } else {
      AddContent(std::move(content), index, one, g);
    }
    std::string where = fmt::format("{} (lines {}-{}{})", InputKindName(p.kind),
                                    p.block->first_line, p.block->last_line,
                                    p.block->command.empty() ? "" : ", `" + p.block->command + "`");
    if (one.ok) {
      for (const std::string& n : one.notes) notes.push_back(n);
      read.push_back(where);
      gpus = std::max(gpus, one.gpu_count);
      if (file.kind == InputKind::kUnknown) file.kind = p.kind;
    } else {
      errors.push_back(where + ": " + one.error);
    }
  }
  // Nothing of a file of a known kind read as a paste: its own reader says why.
  if (read.empty() && !any_log && whole != InputKind::kUnknown) return false;
  if (any_log) {
    g.logs.push_back(InMemoryLog(index, false, text));
    read.emplace_back("its log lines");
    if (file.kind == InputKind::kUnknown) file.kind = InputKind::kKernelLog;
  }
  if (whole != InputKind::kUnknown) file.kind = whole;
  if (read.empty()) {
    file.error = file.path + ": not an nvidia-smi, bug report or kernel log file" +
                 (errors.empty() ? "" : " (" + errors.front() + ")");
    return true;
  }
  file.ok = true;
  file.gpu_count = gpus;
  for (const std::string& n : notes) AddNote(file, n);
  std::string left_out = PasteLeftOut(paste);
  AddNote(file, "read as a pasted text: " + fmt::format("{}", fmt::join(read, "; ")) +
                    (left_out.empty() ? "" : "; left out " + left_out));
  for (const std::string& e : errors) AddNote(file, "not read: " + e);
  return true;
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

// Tells a member's kind from its beginning (the stream stands at its start);
// dumps are read whole now, logs and bug reports later, streamed, and a
// beginning that tells nothing is streamed as a log whose lines decide.
void AddMember(std::shared_ptr<InputStream> in, bool reopenable, std::size_t index,
               AnalyzedFile& file, Gathered& g) {
  auto peeked = in->Peek(kDetectHeadBytes);
  if (!peeked) {
    file.error = peeked.error().message;
    return;
  }
  std::string head(*peeked);
  if (head.empty()) {
    AddNote(file, in->note());
    file.error = file.path + (in->format().empty() ? ": empty file" : ": empty file (once decompressed)");
    return;
  }
  if (Utf16ToUtf8(head)) {  // UTF-16 (PowerShell redirection): converted whole
    auto raw = ReadAll(*in, kWholeFileLimitBytes);
    if (!raw) {
      file.error = raw.error().message;
      return;
    }
    std::string content = Utf16ToUtf8(*raw).value_or(std::string());
    if (content.empty()) {  // a byte-order mark and nothing else
      file.error = file.path + ": empty file";
      return;
    }
    file.kind = DetectInputKind(content);
    AddContent(std::move(content), index, file, g);
    return;
  }
  const bool journal_export = LooksLikeJournalExport(head);
  // The whole file is in its head: a paste from a ticket may be.
  if (!journal_export && head.size() < kDetectHeadBytes && AddPaste(head, index, file, g)) return;
  file.kind = journal_export ? InputKind::kKernelLog : DetectInputKind(head);
  if (file.kind == InputKind::kKernelLog || file.kind == InputKind::kBugReport ||
      file.kind == InputKind::kUnknown) {
    LogShape shape = journal_export         ? LogShape::kJournalExport
                     : IsJsonDocument(head) ? LogShape::kJsonDocuments
                                            : LogShape::kLines;
    bool from_lines = file.kind == InputKind::kUnknown;
    if (from_lines) file.kind = InputKind::kKernelLog;
    g.logs.push_back(PendingLog{index, file.kind == InputKind::kBugReport, shape, std::nullopt,
                                std::move(in), std::move(head), reopenable, from_lines});
    file.ok = true;
    return;
  }
  auto content = ReadWhole(*in, file.kind, file.path);
  if (!content) {
    file.error = content.error().message;
    return;
  }
  AddContent(std::move(*content), index, file, g);
  // A dump cut short is usable only when what came before parses.
  if (!in->note().empty()) {
    if (file.ok) {
      AddNote(file, in->note());
    } else {
      file.error += " (" + in->note() + ")";
    }
  }
}

void AddFile(const std::string& path, std::size_t index, AnalyzedFile& file, Gathered& g) {
  auto in = std::make_shared<InputStream>();
  if (auto r = in->Open(path); !r) {
    file.error = r.error().message;
    return;
  }
  if (in->archive()) {
    file.kind = InputKind::kArchive;
    g.archives.push_back(PendingArchive{index, std::move(in)});
    return;
  }
  const bool reopenable = path != kStdinPath && in->file_size().has_value();
  AddMember(std::move(in), reopenable, index, file, g);
}

int YearOf(WallTime t) {
  return static_cast<int>(
      std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(t)).year());
}

// True when some line of `chunk` is one a log has (a stamp, a record, GPU
// log words): a file whose beginning told no kind is a log then.
bool AnyLogLine(std::string_view chunk) {
  while (!chunk.empty()) {
    std::size_t nl = chunk.find('\n');
    if (IsRecognisedLogLine(chunk.substr(0, nl))) return true;
    chunk.remove_prefix(nl == std::string_view::npos ? chunk.size() : nl + 1);
  }
  return false;
}

// Feeds one log to the scanner: in memory or streamed, lines or records.
// A bug report passes only its kernel sections, and its facts to `facts`.
// `recognised` becomes true when a line is one a log has (a log whose kind
// comes from its lines). `note` gets the note of the stream read (where a
// compressed input ends early), also of one opened again to read as lines.
Status ScanLog(const PendingLog& log, const std::string& path, KernelEventScanner& scanner,
                     BugReportFacts& facts, bool& recognised, std::string& note) {
  struct NoteOnReturn {
    const PendingLog& log;
    std::string& note;
    ~NoteOnReturn() {
      if (log.stream && note.empty()) note = log.stream->note();
    }
  } note_on_return{log, note};
  BugReportReader report;
  BugReportKernelFilter kernel_sections;
  std::size_t line_no = 1;
  auto on_chunk = [&](std::string_view chunk) {
    if (!log.bug_report) {
      if (!recognised && log.kind_from_lines) recognised = AnyLogLine(chunk);
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
  if (log.text) {
    on_chunk(*log.text);
  } else if (log.shape == LogShape::kJsonDocuments) {
    InputStreamBuf buf(*log.stream);
    std::istream stream(&buf);
    JsonRecordsResult r = ReadJsonRecords(stream, on_record);
    if (!buf.error().empty()) return Error{ErrorCode::kCorrupt, buf.error()};
    if (!r.error.empty() && r.records == 0) {
      // Not JSON after all: read it as lines, from its head when that is all
      // there is (a file is opened again; a pipe's or member's rest is gone).
      // The stream given up on holds no thread or buffers meanwhile.
      log.stream->LeaveMember();
      PendingLog as_lines;
      as_lines.file = log.file;
      as_lines.kind_from_lines = log.kind_from_lines;
      if (log.reopenable) {
        as_lines.stream = std::make_shared<InputStream>();
        if (auto o = as_lines.stream->Open(path); !o) return o.error();
      } else {
        as_lines.text = log.head;
      }
      return ScanLog(as_lines, path, scanner, facts, recognised, note);
    }
    recognised = true;
  } else if (log.shape == LogShape::kJournalExport) {
    JournalExportReader reader(on_record);
    auto r = StreamLines(*log.stream, [&](std::string_view chunk) { reader.Feed(chunk); });
    if (!r) return r.error();
    reader.Finish();
    recognised = true;
  } else if (!log.bug_report) {
    // The needle search and the lines' parse on this thread, the scanner on
    // a worker (kernel_scan_ahead.h).
    auto inspect = [&](std::string_view chunk) {
      if (!recognised && log.kind_from_lines) recognised = AnyLogLine(chunk);
    };
    auto r = ScanKernelLogAhead(
        [&](char* buf, std::size_t size) { return log.stream->Read(buf, size); }, path, scanner,
        inspect);
    if (!r) return r.error();
  } else if (auto r = StreamLines(*log.stream, on_chunk); !r) {
    return r.error();
  }
  if (log.bug_report) {
    facts = report.Finish();
    recognised = true;
  }
  return OkStatus();
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

// Oldest first, undated dumps before dated ones.
void SortReadings(std::vector<Reading>& readings) {
  std::stable_sort(readings.begin(), readings.end(), [](const Reading& a, const Reading& b) {
    if (a.time.has_value() != b.time.has_value()) return b.time.has_value();
    return a.time && *a.time < *b.time;
  });
}

// nvlink output names GPUs by index and UUID only: its links go to the
// newest reading of the same GPUs (the one the rules read), and only GPUs
// that no dump has form a reading of their own.
void AddNvlinkOutputs(Gathered& g) {
  if (g.nvlink_outputs.empty()) return;
  SystemStatus links = CombineNvlinkOutputs(g.nvlink_outputs);
  SortReadings(g.readings);
  if (!g.readings.empty()) links.gpus = MergeNvlinksInto(links.gpus, g.readings.back().status);
  if (!links.gpus.empty()) g.readings.push_back(Reading{std::move(links), std::nullopt});
}

void AddReadings(std::vector<Reading>& readings, DiagnosisInput& input) {
  // AddReading keeps the newest reading's versions and NVML state: feed them
  // oldest first, undated dumps before dated ones.
  SortReadings(readings);
  for (const Reading& r : readings) {
    AddReading(input, r.status, r.time);
    Widen(input, r.time);
  }
}

int YearHint(const Gathered& g) {
  int year = 0;
  for (const Reading& r : g.readings) {
    if (r.time) year = std::max(year, YearOf(*r.time));
  }
  return year;
}

// The report's Date line comes first: its year, from the log's head.
int BugReportYear(std::string_view head) {
  BugReportReader prologue;
  for (std::string_view rest = head; !rest.empty();) {
    std::size_t nl = rest.find('\n');
    prologue.Line(rest.substr(0, nl));
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  }
  return prologue.Finish().date_year;
}

// Scans one log into `kernel`; a log whose lines decide its kind and that
// has none a log has is refused (refuse_silently: an archive's member that
// holds nothing of interest, counted by the caller).
void ScanOne(const PendingLog& log, int year_hint, Gathered& g, std::vector<AnalyzedFile>& files,
             DiagnosisInput& input, KernelFacts& kernel) {
  const std::string path = files[log.file].path;
  ExtractOptions opts;
  opts.time.year = year_hint;
  if (log.bug_report) {
    if (int y = BugReportYear(log.text ? std::string_view(*log.text).substr(0, kDetectHeadBytes)
                                       : std::string_view(log.head)))
      opts.time.year = y;
  }
  KernelEventScanner scanner(opts);
  BugReportFacts facts;
  bool recognised = !log.kind_from_lines;
  std::string note;
  auto r = ScanLog(log, path, scanner, facts, recognised, note);
  AddNote(files[log.file], note);
  if (!r) {
    files[log.file].ok = false;
    files[log.file].error = r.error().message;
    return;
  }
  const GpuLineStats& stats = scanner.gpu_line_stats();
  if (!recognised && scanner.events_so_far() == 0 && stats.decoded + stats.undecoded == 0 &&
      scanner.nvsmi_messages().empty()) {
    files[log.file].ok = false;
    files[log.file].kind = InputKind::kUnknown;
    files[log.file].error = path + ": not an nvidia-smi, bug report or kernel log file";
    return;
  }
  AnalyzedFile& file = files[log.file];
  if (log.bug_report) {
    AddBugReportFacts(facts, file, g);
  } else {
    AddLogSmiMessages(scanner.nvsmi_messages(), file, g);
  }
  std::vector<KernelEvent> events = scanner.Finish();
  file.event_count = events.size();
  file.undecoded_lines = stats.undecoded;
  if (std::size_t n = scanner.events_left_out(); n > 0) {
    AddNote(file, std::to_string(n) + " occurrences of further kinds of events left out (" +
                      std::to_string(kMaxKernelEvents) + " kinds kept)");
    kernel.events_left_out += n;
  }
  if (stats.decoded == 0 && stats.undecoded > 0) {
    kernel.undecoded.push_back(
        UndecodedLog{path, stats.undecoded, stats.first_undecoded.line, stats.first_undecoded_text});
  }
  kernel.sources.push_back(SourceStatus{path, true, {}});
  for (const KernelEvent& e : events) {
    Widen(input, e.time);
    Widen(input, e.last_time);
  }
  kernel.events.insert(kernel.events.end(), std::make_move_iterator(events.begin()),
                       std::make_move_iterator(events.end()));
}

// An archive's members, one after the other, each a file of its own
// ("bundle.tar.gz:var/log/kern.log"); those that hold nothing gpudoctor
// reads are counted in a note on the archive, not listed one by one.
void AddArchive(PendingArchive& archive, Gathered& g, std::vector<AnalyzedFile>& files,
                DiagnosisInput& input, KernelFacts& kernel) {
  const std::size_t archive_index = archive.file;
  std::size_t members = 0, unread = 0, used = 0;
  for (;;) {
    auto next = archive.stream->NextMember();
    if (!next) {
      files[archive_index].error = next.error().message;
      break;
    }
    if (!*next) break;
    ++members;
    const std::size_t index = files.size();
    files.push_back(AnalyzedFile{files[archive_index].path + ":" + **next, InputKind::kUnknown,
                                 false, {}, 0, 0, 0, {}});
    const std::size_t logs_before = g.logs.size();
    AddMember(archive.stream, false, index, files[index], g);
    if (g.logs.size() > logs_before) {  // a log: scanned now, the stream moves on after it
      PendingLog log = std::move(g.logs.back());
      g.logs.pop_back();
      ScanOne(log, YearHint(g), g, files, input, kernel);
    }
    if (files[index].ok) {
      ++used;
    } else if (files[index].kind == InputKind::kUnknown) {
      ++unread;
      files.pop_back();  // nothing gpudoctor reads: counted below
    }
  }
  AnalyzedFile& file = files[archive_index];
  AddNote(file, archive.stream->note());
  if (unread > 0)
    AddNote(file, std::to_string(unread) + " of its " + std::to_string(members) +
                      " members hold nothing gpudoctor reads");
  file.ok = used > 0;
  if (!file.ok && file.error.empty())
    file.error = file.path + ": no member of the " + archive.stream->format() +
                 " archive is an nvidia-smi, bug report or kernel log file";
}

void AddLogs(Gathered& g, std::vector<AnalyzedFile>& files, DiagnosisInput& input) {
  if (g.logs.empty() && g.archives.empty()) return;
  const int year_hint = YearHint(g);
  KernelFacts kernel;
  std::vector<PendingLog> logs = std::move(g.logs);
  g.logs.clear();
  for (const PendingLog& log : logs) ScanOne(log, year_hint, g, files, input, kernel);
  for (PendingArchive& archive : g.archives) AddArchive(archive, g, files, input, kernel);
  if (logs.empty() && kernel.sources.empty()) return;
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
    result.files.push_back(AnalyzedFile{paths[i], InputKind::kUnknown, false, {}, 0, 0, 0, {}});
    AddFile(paths[i], i, result.files.back(), g);
  }
  // Bug reports add readings as they are streamed: logs first, then the readings.
  AddLogs(g, result.files, result.input);
  AddNvlinkOutputs(g);
  AddReadings(g.readings, result.input);
  if (!result.input.driver_version) result.input.driver_version = g.proc_driver_version;
  result.input.hostname = g.hostname;
  result.input.kernel_release = g.kernel_release;
  return result;
}

}  // namespace gpudoctor
