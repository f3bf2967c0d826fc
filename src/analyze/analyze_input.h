// The input side of `gpudoctor analyze FILE...`: any mix of files from
// another machine turned into the DiagnosisInput the rules read, so that the
// same rules run as on a live machine.
//
// What each kind of file gives (kinds are told from content, never names;
// gzip is decompressed first, whatever the name):
//   - nvidia-smi -q -x XML and nvidia-smi -q text (also -q -d excerpts): one
//     reading of the GPUs, taken at the dump's own Timestamp when it parses
//     (none otherwise). Several dumps of the same GPUs form a window.
//   - the default `nvidia-smi` table: one reading per table in the file (run
//     twice, `nvidia-smi -l`), of what the table shows (cells showing ERR! are
//     failed queries), each at the date line nvidia-smi prints above it when
//     present. Kernel-log lines pasted with the table are read as a log too.
//   - `nvidia-smi nvlink -s` / `-e` output: each GPU's links (up or
//     inactive, speed, error counters), merged into the newest reading of
//     the other dumps given with it (GPUs matched by UUID, else by index),
//     else one reading of its own; several such files of one machine merge.
//   - nvidia-bug-report.log: its kernel-log sections (as the live
//     --kernel-log path reads them), its `nvidia-smi --query` output as one
//     reading (a failed run becomes a reading with nvml_loaded = false and the
//     tool's message as nvml_error), the driver version of
//     /proc/driver/nvidia/version, host name and kernel release from `uname:`.
//   - kernel logs and journals in every format kernel_line.h reads, JSON
//     lines, logfmt, whole JSON documents and journal export records
//     (log_record.h), and PyTorch/NCCL logs: kernel events. Text is a kernel
//     log only when at least one line has a kernel/syslog/journal/glog stamp,
//     it mentions NVRM, Xid or NCCL, or it holds log records; other text
//     (topo matrices, CSV queries) is refused as unknown.
// The kind is told from the first kDetectHeadBytes of the (decompressed)
// file. Kernel logs, journals and bug reports are then read in one
// streaming pass (memory does not grow with the file); nvidia-smi dumps and
// tables, and UTF-16 files, are read whole within kDefaultLogLimitBytes.
// Naive local stamps (nvidia-smi's Timestamp, syslog, dmesg -T) are read as
// UTC so that the readings and events of one machine line up; year-less log
// stamps take the year of the bug report's Date line, else of the newest
// dump, else the current year.
// Thread-compatible; never throws.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "facts/diagnosis_input.h"

namespace gpudoctor {

enum class InputKind {
  kNvidiaSmiXml,
  kNvidiaSmiText,
  kNvidiaSmiTable,
  kNvidiaSmiNvlink,  // nvidia-smi nvlink -s / -e
  kBugReport,
  kKernelLog,
  kArchive,  // tar, zip, 7-Zip, ...: its members are files of their own
  kUnknown
};

// "nvidia-smi-xml", "nvidia-smi-text", "nvidia-smi-table", "nvidia-smi-nvlink",
// "nvidia-bug-report",
// "kernel-log", "unknown".
const char* InputKindName(InputKind kind);

// The kind of (decompressed) file content. Pure.
InputKind DetectInputKind(std::string_view content);

// True when the text mentions NVRM, Xid or NCCL: a kernel or NCCL log, or
// such lines pasted under an nvidia-smi table. Pure.
bool MentionsGpuLogWords(std::string_view content);

struct AnalyzedFile {
  std::string path;  // as given
  InputKind kind = InputKind::kUnknown;
  bool ok = false;
  std::string error;            // one line naming the file; empty when ok
  std::size_t gpu_count = 0;    // GPUs in this file's reading(s)
  std::size_t event_count = 0;  // kernel events extracted from this file
  std::size_t undecoded_lines = 0;  // lines mentioning NVRM or Xid not read as an event
  std::vector<std::string> notes;   // what was read only in part, and why (one line each)
};

// How much of a file's (decompressed) beginning tells its kind.
constexpr std::size_t kDetectHeadBytes = 64u << 10;

// Formats parsed whole (nvidia-smi XML, -q text, tables and nvlink output,
// UTF-16 text) are refused beyond this size, before they are read when the size is known.
constexpr std::size_t kWholeFileLimitBytes = 32u << 20;

// True when a line is one a log has: a kernel, syslog, journal or glog
// stamp, a JSON or logfmt record, GPU log words (NVRM, Xid, NCCL), or a
// Fabric Manager entry, or a message of the kernel-log catalog. Pure.
bool IsRecognisedLogLine(std::string_view line);

struct AnalyzeResult {
  DiagnosisInput input;
  std::vector<AnalyzedFile> files;  // one per path, in the order given
};

// Reads every path. A file that cannot be read or parsed gets ok = false and
// a one-line error ("FILE: no such file", "FILE: not a file (a directory)",
// "FILE: empty file", "FILE: gzip data corrupt at byte N (...)", "FILE: not
// an nvidia-smi, bug report or kernel log file", "FILE: larger than the 256
// MiB limit (nvidia-smi-xml files are read whole; ...)"); the others are
// still used. A log whose NVRM/Xid lines could not be read at all is listed
// in input.kernel->undecoded.
// The result: input.live = false, input.config = config; readings added in
// time order (dumps without a stamp first, in the order given); kernel
// events of all logs merged, those with a time in time order, then those
// without (input.kernel set only when a log or bug report was read; its
// sources list each such file); driver_version / cuda_driver_version from
// the dumps (the bug report's /proc version when no dump states one);
// window_from/to from the earliest and latest known times of readings and
// events.
AnalyzeResult AnalyzeFiles(const std::vector<std::string>& paths, const Config& config);

}  // namespace gpudoctor
