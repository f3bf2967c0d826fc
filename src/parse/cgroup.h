// Pure parsers for cgroup files: /proc/<pid>/cgroup, the v2 limits
// (cpu.max, memory.max) and the v1 ones (cpu.cfs_quota_us/cfs_period_us,
// memory.limit_in_bytes), and container / pod ids found in a cgroup path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "facts/processes.h"

namespace gpudoctor {

// One line of /proc/<pid>/cgroup: "hierarchy-id:controllers:path".
// cgroup v2 is the line "0::/path" (no controllers).
struct CgroupLine {
  unsigned hierarchy = 0;
  std::vector<std::string>
      controllers;  // "cpu,cpuacct" -> {"cpu","cpuacct"}; v1 "name=systemd" kept as is
  std::string path;
};

Result<std::vector<CgroupLine>> ParseProcCgroup(std::string_view text);

// The cgroup path for a v1 controller ("cpu", "memory"), or the v2 path
// ("0::") when controller is empty. std::nullopt when not listed.
std::optional<std::string> CgroupPathFor(const std::vector<CgroupLine>& lines,
                                         std::string_view controller);

// A CPU quota: how many cores' worth of time per period the group may use.
// std::nullopt quota means unlimited.
struct CpuQuota {
  std::optional<std::int64_t> quota_us;
  std::int64_t period_us = 100000;
  // quota / period, or std::nullopt when unlimited.
  std::optional<double> Cores() const;
};

// v2 cpu.max: "max 100000" (unlimited) or "200000 100000" (2 cores).
Result<CpuQuota> ParseCpuMax(std::string_view text);
// v1: cpu.cfs_quota_us ("-1" = unlimited) and cpu.cfs_period_us.
Result<CpuQuota> ParseCfsQuota(std::string_view quota_text, std::string_view period_text);

// v2 memory.max ("max" = unlimited) or v1 memory.limit_in_bytes, where a
// value at or above 2^62 (the kernel's PAGE_COUNTER_MAX sentinel, e.g.
// 9223372036854771712) also means unlimited. std::nullopt = unlimited.
Result<std::optional<std::uint64_t>> ParseMemoryLimit(std::string_view text);

// cpu.stat's throttling counters: v2 "nr_periods", "nr_throttled",
// "throttled_usec"; v1 (cpu controller) "nr_periods", "nr_throttled",
// "throttled_time" in nanoseconds. An error when the periods or the
// throttled periods are missing.
struct CpuStat {
  std::uint64_t periods = 0;
  std::uint64_t throttled_periods = 0;
  double throttled_s = 0;
};
Result<CpuStat> ParseCpuStat(std::string_view text);

// Finds a container id (64 hex digits) and a Kubernetes pod uid in a cgroup
// path such as "/kubepods.slice/kubepods-burstable.slice/
// kubepods-burstable-pod1b2c..._x.slice/cri-containerd-<64hex>.scope",
// "/system.slice/docker-<64hex>.scope" or "/docker/<64hex>".
// std::nullopt when the path names neither.
std::optional<ContainerRef> ContainerFromCgroupPath(std::string_view path);

}  // namespace gpudoctor
