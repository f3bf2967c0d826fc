#include "collect/process_owners.h"

#include <set>

namespace gpudoctor {
namespace {

void Apply(const ProcessInfo& info, GpuProcess& p) {
  if (!info.visible) return;
  p.user = info.user.empty() && info.uid ? std::to_string(*info.uid) : info.user;
  if (info.container) {
    p.container_id = info.container->container_id;
    p.pod_uid = info.container->pod_uid;
  }
}

// The pod's and container's names of every process the kubelet's
// directories name.
void ApplyKubeNames(const std::map<std::string, KubePodRef>& pods,
                    const std::map<std::string, KubeContainerRef>& containers, SystemStatus& status) {
  for (auto& g : status.gpus) {
    if (!g.processes) continue;
    for (auto& p : *g.processes) {
      if (auto it = pods.find(p.pod_uid); !p.pod_uid.empty() && it != pods.end()) {
        p.pod_name = it->second.name;
        p.pod_namespace = it->second.namespace_name;
      }
      if (const KubeContainerRef* c = FindContainerById(containers, p.container_id)) {
        p.container_name = c->container_name;
      }
    }
  }
}

}  // namespace

void NameKubeOwners(const CollectContext& ctx, SystemStatus& status) {
  bool in_pod = false;
  for (const auto& g : status.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) in_pod = in_pod || !p.pod_uid.empty();
  }
  if (!in_pod) return;
  ApplyKubeNames(ReadKubePods(ctx), ReadKubeContainers(ctx), status);
}

std::vector<std::uint32_t> ProcessPids(const SystemStatus& status) {
  std::set<std::uint32_t> seen;
  std::vector<std::uint32_t> out;
  for (const auto& g : status.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) {
      if (seen.insert(p.pid).second) out.push_back(p.pid);
    }
  }
  return out;
}

void ApplyProcessOwners(const std::vector<ProcessInfo>& infos, SystemStatus& status) {
  std::map<std::uint32_t, const ProcessInfo*> by_pid;
  for (const auto& info : infos) by_pid[info.pid] = &info;
  for (auto& g : status.gpus) {
    if (!g.processes) continue;
    for (auto& p : *g.processes) {
      if (auto it = by_pid.find(p.pid); it != by_pid.end()) Apply(*it->second, p);
    }
  }
}

void ProcessOwnerCache::Annotate(const CollectContext& ctx, SystemStatus& status) {
  std::set<std::uint32_t> seen;
  std::vector<std::uint32_t> unknown;
  for (const auto& g : status.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) {
      if (seen.insert(p.pid).second && !known_.count(p.pid)) unknown.push_back(p.pid);
    }
  }
  if (!unknown.empty()) {
    for (auto& info : DescribeProcesses(ctx, unknown)) known_[info.pid] = std::move(info);
  }
  // A pid that left is forgotten: the next one with that number is another.
  for (auto it = known_.begin(); it != known_.end();) {
    it = seen.count(it->first) ? std::next(it) : known_.erase(it);
  }
  for (auto& g : status.gpus) {
    if (!g.processes) continue;
    for (auto& p : *g.processes) {
      if (auto it = known_.find(p.pid); it != known_.end()) Apply(it->second, p);
    }
  }
  LearnPods(ctx, status, !unknown.empty());
  LearnContainers(ctx, status, !unknown.empty());
  ApplyKubeNames(pods_, containers_, status);
}

void ProcessOwnerCache::LearnContainers(const CollectContext& ctx, const SystemStatus& status,
                                        bool new_pids) {
  if (new_pids) containers_missing_.clear();
  // Only a container of a pod the kubelet names: a plain docker host has
  // no /var/log/containers to list at every new id.
  auto wanted = [&](const GpuProcess& p) {
    return !p.container_id.empty() && !p.pod_uid.empty() &&
           FindContainerById(containers_, p.container_id) == nullptr;
  };
  bool unknown = false;
  for (const auto& g : status.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) {
      unknown = unknown || (wanted(p) && !containers_missing_.count(p.container_id));
    }
  }
  if (!unknown) return;
  containers_ = ReadKubeContainers(ctx);
  for (const auto& g : status.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) {
      if (wanted(p)) containers_missing_.insert(p.container_id);
    }
  }
  if (containers_missing_.size() > 4096) containers_missing_.clear();
}

void ProcessOwnerCache::LearnPods(const CollectContext& ctx, const SystemStatus& status,
                                  bool new_pids) {
  if (new_pids) pods_missing_.clear();
  bool unknown = false;
  for (const auto& g : status.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) {
      unknown = unknown || (!p.pod_uid.empty() && !pods_.count(p.pod_uid) &&
                            !pods_missing_.count(p.pod_uid));
    }
  }
  if (!unknown) return;
  pods_ = ReadKubePods(ctx);
  for (const auto& g : status.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) {
      if (!p.pod_uid.empty() && !pods_.count(p.pod_uid)) pods_missing_.insert(p.pod_uid);
    }
  }
  // Bounded: uids of pods long gone do not pile up.
  if (pods_missing_.size() > 4096) pods_missing_.clear();
}

}  // namespace gpudoctor
