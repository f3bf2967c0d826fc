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

#include "facts/versions.h"

namespace gpudoctor {

// One log entry's first line; nullopt for lines that do not start an entry
// (continuation lines, blanks).
std::optional<FmLogLine> ParseFmLogLine(std::string_view line);

// "fabric manager NVIDIA GPU driver interface version 530.30.02 don't match
// with driver version 530.41.03" (also "doesn't match"), in a log or journal line.
std::optional<FmVersionMismatch> ParseFmVersionMismatch(std::string_view line);

// `nv-fabricmanager --version`: "Fabric Manager version is : 535.161.08".
std::optional<std::string> ParseFmVersionOutput(std::string_view text);

// LOG_FILE_NAME from fabricmanager.cfg; the documented default
// "/var/log/fabricmanager.log" when the key is absent or empty.
std::string FmLogPathFromConfig(std::string_view cfg_text);

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
