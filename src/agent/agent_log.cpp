#include "agent/agent_log.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "core/terminal.h"
#include "core/time_format.h"
#include "core/utf8.h"

namespace gpudoctor {
namespace {

std::atomic<LogLevel> g_level{LogLevel::kInfo};
std::mutex g_mu;

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kError: return "error";
  }
  return "info";
}

// sd-daemon(3) priorities.
const char* JournalPrefix(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "<7>";
    case LogLevel::kInfo: return "<6>";
    case LogLevel::kWarning: return "<4>";
    case LogLevel::kError: return "<3>";
  }
  return "<6>";
}

}  // namespace

Result<LogLevel> ParseLogLevel(std::string_view text) {
  for (LogLevel l : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarning, LogLevel::kError}) {
    if (text == LevelName(l)) return l;
  }
  return Error{ErrorCode::kInvalid, "--log-level " + std::string(text) +
                                        ": expected debug, info, warning or error"};
}

void SetLogLevel(LogLevel level) { g_level.store(level); }

void Log(LogLevel level, const std::string& message) {
  if (level < g_level.load()) return;
  static const bool journal = std::getenv("JOURNAL_STREAM") != nullptr;
  std::string line;
  if (journal) {
    line = std::string(JournalPrefix(level)) + message + "\n";
  } else {
    line = FormatRfc3339(std::chrono::system_clock::now()) + " " + LevelName(level) + ": " +
           message + "\n";
  }
  std::lock_guard lock(g_mu);
  // A message may quote names and log lines from outside: valid UTF-8 for
  // the journal, no control characters for a terminal.
  WriteAll(STDERR_FILENO, ToPrintableText(line));
}

}  // namespace gpudoctor
