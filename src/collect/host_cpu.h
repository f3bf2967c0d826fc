// Host CPU evidence: utilisation (total and per core, with iowait and steal)
// between two readings of /proc/stat, load average, online cores, the
// cgroup CPU quota, and the processes that used the most CPU.
//
// Use: a = ReadCpu(ctx); sleep; b = ReadCpu(ctx); Diff(a, b). ReadCpu never
// fails; what it could not read is in `sources` and the matching optional
// stays empty. Not thread-safe per snapshot object; the functions share no
// state.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "collect/top_processes.h"
#include "facts/host.h"
#include "parse/proc_stat.h"

namespace gpudoctor {

struct CpuSnapshot {
  std::chrono::steady_clock::time_point taken;
  std::optional<ProcStat> stat;         // /proc/stat
  std::vector<ProcessTicks> processes;  // /proc/<pid>/stat, when asked for
  std::vector<SourceStatus> sources;
};

// Reads /proc/stat and, when with_processes, every /proc/<pid>/stat.
CpuSnapshot ReadCpu(const CollectContext& ctx, bool with_processes = true);

// Utilisation between two snapshots (a earlier than b); top_n processes.
CpuUsage Diff(const CpuSnapshot& a, const CpuSnapshot& b, std::size_t top_n = 5);

// Reads /proc/loadavg and /sys/devices/system/cpu/online; the quota comes
// from ReadCgroupLimits (passed in so it is read once).
CpuInfo ReadCpuInfo(const CollectContext& ctx, std::optional<double> cgroup_quota_cores);

// Effective cores divided by the number of GPUs (facts: recommend 4-8 per
// GPU); std::nullopt when either is unknown or gpu_count is 0.
std::optional<double> CoresPerGpu(std::optional<double> effective_cores, unsigned gpu_count);

}  // namespace gpudoctor
