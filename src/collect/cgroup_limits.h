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

}  // namespace gpudoctor
