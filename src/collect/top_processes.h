// Which processes used the most CPU between two moments: reads
// /proc/<pid>/stat for every pid below the context root, and ranks the
// difference. Reading is best effort (processes come and go between the
// directory listing and the read); ranking is pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "facts/host.h"

namespace gpudoctor {

struct ProcessTicks {
  int pid = 0;
  std::string comm;
  std::uint64_t cpu_ticks = 0;        // utime + stime
  std::uint64_t starttime_ticks = 0;  // tells a reused pid apart
  char state = '?';                   // R, S, D, Z, ...
  int ppid = 0;
  bool kernel_thread = false;
  // voluntary + involuntary context switches; read for D-state processes only.
  std::optional<std::uint64_t> context_switches;
};

// Every readable /proc/<pid>/stat, sorted by pid, with the context switches
// of those in D state from /proc/<pid>/status. A pid that vanished
// between listing and reading is skipped silently; an unreadable /proc gives
// an empty list and an Error.
Result<std::vector<ProcessTicks>> ReadProcessTicks(const CollectContext& ctx);

// The `limit` processes with the largest CPU share between two readings,
// largest first. Shares are relative to the elapsed jiffies of one core:
// `total_jiffies_delta` is the growth of the aggregate /proc/stat "cpu" line
// and `cores` the number of CPU lines, so no clock or USER_HZ is needed.
// Processes that appear only in `later` or whose start time changed are left
// out (no baseline). Empty when total_jiffies_delta or cores is 0.
std::vector<ProcessCpu> TopProcessesByCpu(const std::vector<ProcessTicks>& earlier,
                                          const std::vector<ProcessTicks>& later,
                                          std::uint64_t total_jiffies_delta, unsigned cores,
                                          std::size_t limit);

// Fills ProcessCpu::cmdline from /proc/<pid>/cmdline where readable.
void ReadCmdlines(const CollectContext& ctx, std::vector<ProcessCpu>& processes);

}  // namespace gpudoctor
