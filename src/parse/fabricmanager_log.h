// Pure parsers for NVIDIA Fabric Manager text: its log file
// (/var/log/fabricmanager.log: "[Feb 25 2025 15:10:02] [ERROR] [tid 12727] ..."),
// the version-mismatch message, `nv-fabricmanager --version` output, and
// LOG_FILE_NAME in fabricmanager.cfg. No I/O; never throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

// One log entry's first line.
struct FmLogLine {
  std::string time_text;  // "Feb 25 2025 15:10:02" (the machine's local time, as written)
  std::string level;      // "ERROR", "INFO", "WARNING", ...
  std::optional<std::uint64_t> tid;
  std::string message;
};
// nullopt for lines that do not start an entry (continuation lines, blanks).
std::optional<FmLogLine> ParseFmLogLine(std::string_view line);

// "fabric manager NVIDIA GPU driver interface version 530.30.02 don't match
// with driver version 530.41.03" (also "doesn't match"), in a log or journal line.
struct FmVersionMismatch {
  std::string fm_version;
  std::string driver_version;
};
std::optional<FmVersionMismatch> ParseFmVersionMismatch(std::string_view line);

// `nv-fabricmanager --version`: "Fabric Manager version is : 535.161.08".
std::optional<std::string> ParseFmVersionOutput(std::string_view text);

// LOG_FILE_NAME from fabricmanager.cfg; the documented default
// "/var/log/fabricmanager.log" when the key is absent or empty.
std::string FmLogPathFromConfig(std::string_view cfg_text);

struct FmLogError {
  std::size_t line_number = 0;  // 1-based, counted from where scanning started
  FmLogLine entry;              // message includes continuation lines
};

struct FmLogSummary {
  std::size_t lines = 0;
  std::size_t entries = 0;
  std::size_t error_count = 0;                        // ERROR, CRITICAL and FATAL entries
  std::size_t warning_count = 0;                      // WARNING / WARN entries
  std::vector<FmLogError> last_errors;                // oldest first, at most max_errors
  std::optional<FmVersionMismatch> version_mismatch;  // the last one seen
  std::string first_time_text;
  std::string last_time_text;
};

// Incremental scanner: feed lines (without '\n') in order; keeps counts and
// the last `max_errors` errors. Not thread-safe.
class FmLogScanner {
 public:
  explicit FmLogScanner(std::size_t max_errors) : max_errors_(max_errors) {}
  void Feed(std::string_view line);
  const FmLogSummary& summary() const { return summary_; }

 private:
  std::size_t max_errors_;
  bool last_was_kept_error_ = false;
  FmLogSummary summary_;
};

// Scans a whole text (convenience over FmLogScanner).
FmLogSummary ScanFabricManagerLog(std::string_view text, std::size_t max_errors);

}  // namespace gpudoctor
