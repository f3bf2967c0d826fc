// Pure parsers for the CPU files of /proc and /sys: /proc/stat,
// /proc/loadavg, CPU lists ("0-3,8-11") and /proc/<pid>/stat. No I/O; each
// returns an Error of kind kCorrupt naming what was malformed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "facts/host.h"

namespace gpudoctor {

// Cumulative jiffies (USER_HZ ticks) of one "cpu" line of /proc/stat.
// Fields that an old kernel does not print stay 0.
struct CpuTimes {
  std::uint64_t user = 0;
  std::uint64_t nice = 0;
  std::uint64_t system = 0;
  std::uint64_t idle = 0;
  std::uint64_t iowait = 0;
  std::uint64_t irq = 0;
  std::uint64_t softirq = 0;
  std::uint64_t steal = 0;
  // guest and guest_nice are already counted in user and nice, so they are
  // not kept apart and not added to Total().

  std::uint64_t Total() const;
  // Time not spent idle or waiting for I/O.
  std::uint64_t Busy() const;
};

struct CoreTimes {
  unsigned cpu = 0;  // the N of "cpuN"
  CpuTimes times;
};

struct ProcStat {
  CpuTimes total;                // the "cpu" line
  std::vector<CoreTimes> cores;  // the "cpuN" lines, in file order
};

// Parses /proc/stat. Error when the aggregate "cpu" line is missing or a cpu
// line has fewer than four numbers.
Result<ProcStat> ParseProcStat(std::string_view text);

// Percentages from two cumulative readings (earlier, later). Counters that
// went backwards (CPU hot-unplug, wrap) count as 0; no elapsed time gives
// all zeros.
CpuPercent CpuPercentBetween(const CpuTimes& earlier, const CpuTimes& later);

// Parses /proc/loadavg ("0.52 0.58 0.59 2/1234 5678").
Result<LoadAvg> ParseLoadAvg(std::string_view text);

// Parses a kernel CPU list ("0-3,8-11", "0", "" = none) into sorted ids.
Result<std::vector<unsigned>> ParseCpuList(std::string_view text);

// One /proc/<pid>/stat line.
struct PidStat {
  int pid = 0;
  std::string comm;  // between the first '(' and the last ')': may hold spaces and ')'
  char state = '?';
  int ppid = 0;
  std::uint64_t flags = 0;  // PF_* bits; 0x00200000 (PF_KTHREAD) marks a kernel thread
  std::uint64_t utime_ticks = 0;
  std::uint64_t stime_ticks = 0;
  std::uint64_t starttime_ticks = 0;  // since boot; tells a reused pid apart
};

// Parses /proc/<pid>/stat. The comm field is found by the last ')' so
// "(tmux: server)" and "(a) b)" parse.
Result<PidStat> ParsePidStat(std::string_view text);

}  // namespace gpudoctor
