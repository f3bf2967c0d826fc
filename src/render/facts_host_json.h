// JSON for the host part of `gpudoctor facts --json`. Keys carry units
// (_percent, _bytes, _per_s, _s); a value that could not be read is null and
// the matching "sources" entry says why. Key order is fixed (ordered_json).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "facts/host.h"
#include "facts/processes.h"

namespace gpudoctor {

// {"cpu": {window_s, available, why?, total/user/system/iowait/steal/idle
//   _percent, cores: [{cpu, total_percent, ...}], load_1m/5m/15m, online_cores,
//   online_list, cgroup_quota_cores, effective_cores, cores_per_gpu,
//   top_processes: [{pid, comm, cmdline, cpu_percent}], sources},
//  "memory": {total/available/used_bytes, used_percent, swap_total/used_bytes,
//   window_s, swap_in/out_bytes_per_s, major_faults_per_s, cgroup_limit_bytes,
//   ram_to_gpu: {ratio, verdict, recommendation} | null, sources},
//  "cgroup": <ToJson(CgroupLimits)>}
nlohmann::ordered_json ToJson(const HostFacts& facts);

// {version, path, cpu_quota_cores, cpu_quota_file, memory_limit_bytes,
//  memory_limit_file, container: {runtime, container_id, pod_uid} | null, sources}
nlohmann::ordered_json ToJson(const CgroupLimits& cgroup);

// [{pid, visible, why_not_visible?, comm, cmdline, uid, user, cgroup_path,
//   container: {...} | null}]
nlohmann::ordered_json ToJson(const std::vector<ProcessInfo>& processes);

}  // namespace gpudoctor
