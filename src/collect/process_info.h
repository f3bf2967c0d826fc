// Who is behind a GPU process: for pids that NVML reports, the command line,
// the user and the container / Kubernetes pod, read below the context root.
// A pid that is not in our /proc (another pid namespace, already exited) is
// reported as not visible, with the reason. Never fails.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "facts/processes.h"

namespace gpudoctor {

// Users are read from <root>/etc/passwd once for all pids.
std::vector<ProcessInfo> DescribeProcesses(const CollectContext& ctx,
                                           const std::vector<std::uint32_t>& pids);

// One pid with a ready uid -> name map (for callers holding their own).
ProcessInfo DescribeProcess(const CollectContext& ctx, std::uint32_t pid,
                            const std::map<std::uint32_t, std::string>& users);

}  // namespace gpudoctor
