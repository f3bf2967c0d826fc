// Who runs each GPU process: the user, container and Kubernetes pod that
// `facts` finds for it (collect/process_info.h), copied into the readings'
// GpuProcess entries so that status, the store and the report show them.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "collect/kube_pods.h"
#include "collect/process_info.h"
#include "core/gpu_status.h"

namespace gpudoctor {

// The pids of every GPU's processes, each once.
std::vector<std::uint32_t> ProcessPids(const SystemStatus& status);

// Sets user, container_id and pod_uid of every process of `status` whose pid
// `infos` describes as visible.
void ApplyProcessOwners(const std::vector<ProcessInfo>& infos, SystemStatus& status);

// The pod's name and namespace and the container's name of every process
// of `status` in a pod (pod_uid set), from one listing of /var/log/pods and
// /var/log/containers (kube_pods.h); nothing is read when no process runs in
// a pod. For one-shot commands (status, facts); a stream of readings uses
// ProcessOwnerCache.
void NameKubeOwners(const CollectContext& ctx, SystemStatus& status);

// Describes the pids of a stream of readings (agent, diagnose, watch), each
// pid once while it keeps appearing: only new pids cost a look into /proc.
// A pod uid it has not met yet costs one listing of /var/log/pods, which
// gives the pod's name and namespace, and a container id one listing of
// /var/log/containers, which gives the container's name (kube_pods.h); a
// uid or id not found there is looked up again only when a new pid appears.
// Thread-safety: none.
class ProcessOwnerCache {
 public:
  void Annotate(const CollectContext& ctx, SystemStatus& status);
  std::size_t size() const { return known_.size(); }

 private:
  void LearnPods(const CollectContext& ctx, const SystemStatus& status, bool new_pids);
  void LearnContainers(const CollectContext& ctx, const SystemStatus& status, bool new_pids);
  std::map<std::uint32_t, ProcessInfo> known_;
  std::map<std::string, KubePodRef> pods_;  // by uid
  std::set<std::string> pods_missing_;       // uids /var/log/pods did not list
  std::map<std::string, KubeContainerRef> containers_;  // by full id
  std::set<std::string> containers_missing_;  // short ids /var/log/containers did not list
};

}  // namespace gpudoctor
