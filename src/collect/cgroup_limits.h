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
#include "parse/cgroup.h"

namespace gpudoctor {

struct CgroupLimits {
  std::string version;      // "v2", "v1", or "" when /proc/<pid>/cgroup was unreadable
  std::string cgroup_path;  // the v2 path, or the v1 cpu controller path
  // Effective CPU quota in cores (quota / period of the tightest group);
  // std::nullopt = no quota found (unlimited, or unreadable: see sources).
  std::optional<double> cpu_quota_cores;
  std::string cpu_quota_file;  // the file that set it, e.g. "/sys/fs/cgroup/x/cpu.max"
  // Tightest memory limit; std::nullopt = unlimited or unreadable.
  std::optional<std::uint64_t> memory_limit_bytes;
  std::string memory_limit_file;
  std::optional<ContainerRef> container;  // when the path names one
  std::vector<SourceStatus> sources;
};

// `pid` is "self" or a number, as in /proc/<pid>/cgroup.
CgroupLimits ReadCgroupLimits(const CollectContext& ctx, std::string_view pid = "self");

}  // namespace gpudoctor
