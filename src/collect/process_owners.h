// Who runs each GPU process: the user, container and Kubernetes pod that
// `facts` finds for it (collect/process_info.h), copied into the readings'
// GpuProcess entries so that status, the store and the report show them.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "collect/collect_context.h"
#include "collect/process_info.h"
#include "core/gpu_status.h"

namespace gpudoctor {

// The pids of every GPU's processes, each once.
std::vector<std::uint32_t> ProcessPids(const SystemStatus& status);

// Sets user, container_id and pod_uid of every process of `status` whose pid
// `infos` describes as visible.
void ApplyProcessOwners(const std::vector<ProcessInfo>& infos, SystemStatus& status);

// Describes the pids of a stream of readings (agent, diagnose, watch), each
// pid once while it keeps appearing: only new pids cost a look into /proc.
// Thread-safety: none.
class ProcessOwnerCache {
 public:
  void Annotate(const CollectContext& ctx, SystemStatus& status);
  std::size_t size() const { return known_.size(); }

 private:
  std::map<std::uint32_t, ProcessInfo> known_;
};

}  // namespace gpudoctor
