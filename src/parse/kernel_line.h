// One kernel-log line with its prefix taken apart: the time stamp in any of
// the formats dmesg, syslog, journalctl, /dev/kmsg and the NVIDIA fabric
// manager write, the host and program name of syslog/journal lines, and the
// message that remains.
//
// Recognised prefixes (tried in this order, first match wins):
//   <3>...                                        priority (dmesg -r, RFC 3164),
//                                                 then any of the below
//   <34>1 2025-02-15T17:37:45Z host app - - - msg RFC 5424
//   4,9921,9370042162,-;msg                       /dev/kmsg record (monotonic µs)
//   2024-08-01T12:34:56,123456+00:00 msg          dmesg --time-format iso
//   2025-02-15T17:37:45.123456+00:00 host kernel: msg   RFC 3339 syslog,
//                                                 journalctl -o short-iso(-precise)
//   Sat 2025-02-15 17:37:45 UTC host kernel: msg  journalctl -o short-full
//   2025-02-15T17:37:45.1Z stdout F msg           Kubernetes CRI container log
//   1739641065.123456 host kernel: msg            journalctl -o short-unix
//   [  123.456789] msg                            dmesg (monotonic seconds),
//                                                 journalctl -o short-monotonic
//   [  123.456789 <    0.000123>] msg             dmesg -d, journalctl short-delta
//   [<    0.000123>] msg                          dmesg --time-format delta (no time)
//   [  +0.000123] msg                             dmesg -H relative line
//   [Sun Feb 23 16:24:18 2025] msg                dmesg -T / --ctime
//   [Feb23 16:24] msg                             dmesg -H / reltime absolute line
//   [Feb 25 2025 13:59:45] [INFO] ...             fabricmanager.log
//   [rank1]:[E626 06:24:44.903 file.cpp:616] msg  glog (PyTorch / NCCL)
//   kern  :err   : <any of the above> msg         dmesg --decode / -x
//   Feb 15 17:37:45 host kernel: [82659.75] msg   syslog, kern.log, messages,
//                                                 journalctl short / short-precise,
//                                                 with or without host name
//   I0215 17:37:45.123456  1 log_monitor.go:160] klog (node-problem-detector)
//   kernel: msg                                   bare journal excerpt
//   <spaces><any of the above>                    an indented paste
//   <spaces>msg                                   continuation of the line before
// Any other line: the message starts at "NVRM:" or after "kernel: " wherever
// they stand, and the first stamp of the shapes above found before it gives
// the time (prefix kEmbedded); with none, the time is unknown.
//
// Month names: English, German, French, Spanish, Italian, Portuguese,
// Polish, Dutch, Russian (abbreviated, both cases), Chinese/Japanese "1月"
// and "一月", Korean "1월" (also space-padded " 2月"). An unknown month name
// costs the time, not the line. Year-less stamps take ctx.year (and get no
// time while it is 0); naive local stamps are converted to UTC by
// subtracting ctx.utc_offset. Pure; never throws.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/kernel_event.h"

namespace gpudoctor {

struct LineTimeContext {
  int year = 0;                        // for stamps without a year; 0: unknown
  std::chrono::seconds utc_offset{0};  // local time = UTC + utc_offset
};

enum class LinePrefix {
  kNone,
  kKmsg,
  kDmesgMonotonic,
  kDmesgRelative,
  kDmesgWall,   // -T, --ctime
  kDmesgHuman,  // -H absolute "[Feb23 16:24]"
  kIso,         // dmesg --time-format iso, RFC 3339 syslog, journal short-iso
  kSyslog,      // "Feb 15 17:37:45 host ident:"
  kFabricManager,
  kGlog,
  kDmesgDelta,  // dmesg --time-format delta "[<    0.000123>]" (time unknown)
  kUnix,        // journalctl -o short-unix "1739641065.123456 host ident:"
  kRfc5424,     // "<34>1 2025-02-15T17:37:45.123Z host app procid msgid sd"
  kEmbedded,    // unknown wrapper; a stamp found inside it before the message
  kContinuation,  // leading white space, no stamp
};

struct KernelLine {
  std::string_view text;     // after the time stamp (may hold "host ident:")
  std::string_view message;  // after the host name and the ident
  std::string_view host;     // empty when none
  std::string_view ident;    // "kernel", "nv-fabricmanager[4177]"; empty when none
  std::optional<WallTime> time;
  std::optional<double> monotonic_s;
  std::optional<double> relative_s;  // dmesg -H "[  +0.000123]"
  int level = -1;                    // syslog level 0..7 when the prefix says
  LinePrefix prefix = LinePrefix::kNone;
};

KernelLine ParseKernelLine(std::string_view line, const LineTimeContext& ctx);

// ParseKernelLine with a memo of the last syslog-style header (stamp, host,
// ident): a line that starts with the same bytes, as a flood's thousand
// lines a second do, reuses their parse. The same results as
// ParseKernelLine. Not thread-safe.
class KernelLineParser {
 public:
  KernelLine Parse(std::string_view line, const LineTimeContext& ctx);

 private:
  std::string header_;  // the memo's bytes; empty: none
  KernelLine memo_;     // their parse (values only: its views are stale)
  LineTimeContext ctx_;
  std::size_t text_at_ = 0, host_at_ = 0, ident_at_ = 0;
};

// Month 1..12 from a (localised) abbreviated or full month name at the start
// of `s`; `consumed` receives the bytes used (a trailing '.' included).
std::optional<int> ParseMonthName(std::string_view s, std::size_t* consumed);

// UTC time point from calendar fields; nullopt when out of range.
std::optional<WallTime> MakeWallTime(int year, int month, int day, int hour, int minute, int second,
                                     double fraction, std::chrono::seconds utc_offset);

}  // namespace gpudoctor
