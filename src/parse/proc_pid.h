// Pure parsers for per-process files other than stat: /proc/<pid>/status
// (the Uid: line) and /proc/<pid>/cmdline; and /etc/passwd for uid -> name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

// The real uid from the "Uid:\treal\teffective\tsaved\tfs" line of
// /proc/<pid>/status; std::nullopt when the line is missing or malformed.
std::optional<std::uint32_t> ParseStatusUid(std::string_view status_text);

// voluntary_ctxt_switches + nonvoluntary_ctxt_switches from
// /proc/<pid>/status: a task blocked for good makes neither. std::nullopt
// when either line is missing or malformed.
std::optional<std::uint64_t> ParseStatusContextSwitches(std::string_view status_text);

// /proc/<pid>/cmdline: NUL-separated arguments joined by single spaces, the
// trailing NUL dropped. Empty for kernel threads and zombies.
std::string CmdlineToString(std::string_view cmdline);

// uid -> user name from /etc/passwd ("name:x:uid:gid:..."). Malformed lines
// and comments are skipped; the first name for a uid wins.
std::map<std::uint32_t, std::string> ParsePasswd(std::string_view text);

}  // namespace gpudoctor
