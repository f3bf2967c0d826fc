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

}  // namespace

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
  for (auto& g : status.gpus) {
    if (!g.processes) continue;
    for (auto& p : *g.processes) {
      if (auto it = pods_.find(p.pod_uid); !p.pod_uid.empty() && it != pods_.end()) {
        p.pod_name = it->second.name;
        p.pod_namespace = it->second.namespace_name;
      }
    }
  }
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
