// Reads the CPU quota and memory limit that cgroups impose on a process
// (by default on gpudoctor itself, which in a container is what the workload
// next to it sees). Both cgroup v2 (unified) and v1 are read below the
// context root; limits set on an ancestor group count too, the tightest wins.
// Never fails: what could not be read is listed in `sources`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/collect_context.h"
#include "facts/host.h"
#include "parse/cgroup.h"

namespace gpudoctor {

// `pid` is "self" or a number, as in /proc/<pid>/cgroup.
CgroupLimits ReadCgroupLimits(const CollectContext& ctx, std::string_view pid = "self");

// cpu.stat beside the quota's file (limits.cpu_quota_file); nullopt when
// there is no quota or the file cannot be read.
std::optional<CpuStat> ReadQuotaCpuStat(const CollectContext& ctx, const CgroupLimits& limits);
// The throttling between two cpu.stat readings `window_s` apart; nullopt
// when the counters went backwards (the group was recreated).
std::optional<CpuThrottling> ThrottlingBetween(const CpuStat& a, const CpuStat& b, double window_s,
                                               std::string file);

}  // namespace gpudoctor
