// The agent's log: one line per message on stderr, with a level. Under
// systemd (JOURNAL_STREAM set) each line carries the sd-daemon priority
// prefix ("<3>") so the journal records the level; otherwise lines start with
// the time and the level.
//
// Thread-safety: Log() may be called from any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

enum class LogLevel { kDebug, kInfo, kWarning, kError };

Result<LogLevel> ParseLogLevel(std::string_view text);
void SetLogLevel(LogLevel level);
void Log(LogLevel level, const std::string& message);

}  // namespace gpudoctor
