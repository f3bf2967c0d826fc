// Kernel logs from files: dmesg/syslog/journalctl text, plain or gzip
// (recognised by its magic bytes, not its name), and the kernel-log sections
// inside nvidia-bug-report.log(.gz).
//
// Errors are one line naming the file ("kern.log.gz: corrupt gzip data",
// "/var/log/x: Permission denied", "big.log: larger than the 256 MiB limit").
// Nothing here throws. Thread-compatible.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_event.h"
#include "core/result.h"

namespace gpudoctor {

constexpr std::size_t kDefaultLogLimitBytes = 256u << 20;

// Calls on_chunk with successive pieces of the (decompressed) file, each
// made of whole lines; only the very last piece may lack a final '\n', and a
// line longer than chunk_bytes is passed in pieces of that size.
// Memory use stays near chunk_bytes whatever the file size. max_bytes = 0
// means no limit. Returns the number of bytes passed on.
Result<std::size_t> StreamLogFile(const std::filesystem::path& path,
                                  const std::function<void(std::string_view)>& on_chunk,
                                  std::size_t max_bytes = 0, std::size_t chunk_bytes = 1u << 20);

// The same over any reader (`read` fills up to n bytes, 0 at the end);
// `name` goes into the limit's error.
Result<std::size_t> StreamLines(const std::function<Result<std::size_t>(char*, std::size_t)>& read,
                                const std::function<void(std::string_view)>& on_chunk,
                                std::size_t max_bytes, std::size_t chunk_bytes,
                                const std::string& name);

// All lines of a file, with `ref` = (path as given, 1-based line).
Result<std::vector<LogLine>> ReadLogFile(const std::filesystem::path& path,
                                         std::size_t max_bytes = kDefaultLogLimitBytes);

// Whether the start of a file is an nvidia-bug-report.log.
bool LooksLikeBugReport(const std::vector<LogLine>& lines);

// The lines of the kernel-log sections of a bug report ("dmesg:",
// "Scanning kernel log files for NVIDIA kernel messages:", journalctl
// sections without a _COMM filter, "*** /var/log/kern.log" style file
// sections), with their line references into the report. Section headers
// and separators are left out.
std::vector<LogLine> BugReportKernelLines(const std::vector<LogLine>& lines);

// The same decision a line at a time, for a report read as a stream.
class BugReportKernelFilter {
 public:
  // Whether `line` (without its '\n') belongs to a kernel-log section.
  bool IsKernelLine(std::string_view line);

 private:
  bool in_kernel_ = false;
  bool want_header_ = false;
};

// ReadLogFile, narrowed to the kernel sections when the file is a bug report.
Result<std::vector<LogLine>> ReadKernelLogFile(const std::filesystem::path& path,
                                               std::size_t max_bytes = kDefaultLogLimitBytes);

}  // namespace gpudoctor
