// DetectInputKind: which reader a file's content goes to.
#include <algorithm>

#include "analyze/analyze_input.h"
#include "parse/fabricmanager_log.h"
#include "parse/kernel_catalog.h"
#include "parse/kernel_prefilter.h"
#include "parse/kernel_line.h"
#include "parse/log_record.h"
#include "parse/nvsmi_nvlink.h"
#include "parse/nvsmi_messages.h"
#include "parse/nvsmi_table.h"
#include "parse/nvsmi_text.h"

namespace gpudoctor {
namespace {

constexpr std::size_t kHeadBytes = kDetectHeadBytes;  // enough to tell any kind apart

// The start of `s`, cut after its last whole line.
std::string_view Head(std::string_view s) {
  if (s.size() <= kHeadBytes) return s;
  std::string_view head = s.substr(0, kHeadBytes);
  std::size_t nl = head.rfind('\n');
  return nl == std::string_view::npos ? head : head.substr(0, nl + 1);
}

// NUL bytes or many control characters: not text any reader could use.
bool LooksBinary(std::string_view head) {
  std::size_t control = 0;
  for (unsigned char c : head.substr(0, 4096)) {
    if (c == 0) return true;
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b) ++control;
  }
  return control * 20 > std::min<std::size_t>(head.size(), 4096);
}

// The report's own prologue. Not just any mention of the script: the Xid 79
// crash-dump message in every kernel log says "please run nvidia-bug-report.sh".
bool IsBugReport(std::string_view head) {
  std::size_t pos = 0;
  for (int n = 0; n < 40 && pos < head.size(); ++n) {
    std::size_t end = std::min(head.find('\n', pos), head.size());
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("nvidia-bug-report.sh Version", 0) == 0 ||
        line.rfind("Start of NVIDIA bug report log file", 0) == 0) {
      return true;
    }
  }
  return false;
}

bool HasStampedLine(std::string_view line) {
  const LineTimeContext ctx{2000, std::chrono::seconds(0)};  // any year: only the shape matters
  switch (ParseKernelLine(line, ctx).prefix) {
    case LinePrefix::kNone:
    case LinePrefix::kEmbedded:      // a date somewhere in a line of any text
    case LinePrefix::kContinuation:  // indented text of any kind
      return false;
    default:
      return true;
  }
}

bool HasStampedLogLine(std::string_view head) {
  for (std::size_t pos = 0; pos < head.size();) {
    std::size_t end = std::min(head.find('\n', pos), head.size());
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 1;
    if (HasStampedLine(line)) return true;
  }
  return false;
}

// A line holding a message of the kernel-log catalog ("nfs: server X not
// responding", "cgroup: fork rejected by pids controller"), stamped or not.
bool HoldsCatalogMessage(std::string_view line) {
  if (!LineMayMatter(line)) return false;
  const LineTimeContext ctx{2000, std::chrono::seconds(0)};
  KernelLine kl = ParseKernelLine(line, ctx);
  return kevents::CatalogRowOf(kl.message, kl.ident).has_value();
}

bool HasCatalogLine(std::string_view head) {
  for (std::size_t pos = 0; pos < head.size();) {
    std::size_t end = std::min(head.find('\n', pos), head.size());
    if (HoldsCatalogMessage(head.substr(pos, end - pos))) return true;
    pos = end + 1;
  }
  return false;
}

// JSON lines or logfmt with a text key, a JSON document holding records, or
// journalctl -o export: log records whatever their words.
bool LooksLikeLogRecords(std::string_view head) {
  if (LooksLikeJournalExport(head)) return true;
  std::size_t i = head.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos) return false;
  std::string_view first = head.substr(i, head.find('\n', i) - i);
  if (UnwrapLogRecord(first)) return true;
  if (head[i] != '{' && head[i] != '[') return false;
  for (std::string_view key : {"\"MESSAGE\"", "\"message\"", "\"msg\"", "\"log\"", "\"line\"", "\"values\""}) {
    if (head.find(key) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

bool IsRecognisedLogLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return false;
  return HasStampedLine(line) || MentionsGpuLogWords(line) || UnwrapLogRecord(line).has_value() ||
         ParseFmLogLine(line).has_value() || HoldsCatalogMessage(line);
}

bool MentionsGpuLogWords(std::string_view content) {
  for (std::string_view word : {"NVRM", "Xid", "NCCL"}) {
    if (content.find(word) != std::string_view::npos) return true;
  }
  return false;
}

const char* InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kNvidiaSmiXml:
      return "nvidia-smi-xml";
    case InputKind::kNvidiaSmiText:
      return "nvidia-smi-text";
    case InputKind::kNvidiaSmiTable:
      return "nvidia-smi-table";
    case InputKind::kNvidiaSmiNvlink:
      return "nvidia-smi-nvlink";
    case InputKind::kBugReport:
      return "nvidia-bug-report";
    case InputKind::kKernelLog:
      return "kernel-log";
    case InputKind::kArchive:
      return "archive";
    case InputKind::kUnknown:
      return "unknown";
  }
  return "unknown";
}

InputKind DetectInputKind(std::string_view content) {
  if (content.rfind("\xEF\xBB\xBF", 0) == 0) content.remove_prefix(3);  // UTF-8 BOM
  std::string_view head = Head(content);
  if (head.find_first_not_of(" \t\r\n") == std::string_view::npos) return InputKind::kUnknown;
  // An XML dump stays one, NUL bytes and all: too large, it is refused from its size.
  if (head.find("<nvidia_smi_log") != std::string_view::npos && !IsBugReport(head))
    return InputKind::kNvidiaSmiXml;
  // Binary bytes tell no kind: such a file is read as a log whose lines decide.
  if (LooksBinary(head)) return InputKind::kUnknown;
  // A bug report holds nvidia-smi output and kernel lines: test it first.
  if (IsBugReport(head)) return InputKind::kBugReport;
  if (head.find("<nvidia_smi_log") != std::string_view::npos) return InputKind::kNvidiaSmiXml;
  if (LooksLikeNvidiaSmiText(head)) return InputKind::kNvidiaSmiText;
  // Before the kernel-log test: a table of a GPU in trouble mentions no log
  // words, but a pasted table may sit under a shell prompt with a date.
  if (LooksLikeNvidiaSmiTable(head)) return InputKind::kNvidiaSmiTable;
  if (LooksLikeNvidiaSmiNvlink(head)) return InputKind::kNvidiaSmiNvlink;
  if (HasStampedLogLine(head) || MentionsGpuLogWords(head) || LooksLikeLogRecords(head) ||
      HasCatalogLine(head))
    return InputKind::kKernelLog;
  // nvidia-smi's output when it failed: "No devices were found", ...
  if (!FindNvidiaSmiMessages(head).empty()) return InputKind::kNvidiaSmiText;
  return InputKind::kUnknown;
}

}  // namespace gpudoctor
