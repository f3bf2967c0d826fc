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

// One of the kubelet's listings, kept while it knows every process's key
// (key_of: empty for none): re-read once a key is neither in it nor
// remembered as missing. Missing keys are forgotten when new pids appear
// (their pod or container may have been listed since) and past 4096, so
// that keys of pods long gone do not pile up.
template <typename Map, typename KeyOf, typename Has, typename Read>
void Relearn(const SystemStatus& status, bool new_pids, Map& listing,
             std::set<std::string>& missing, KeyOf key_of, Has has, Read read) {
  if (new_pids) missing.clear();
  auto unlisted = [&](const GpuProcess& p) {
    const std::string& key = key_of(p);
    return !key.empty() && !has(listing, key);
  };
  bool unknown = false;
  for (const auto& g : status.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) unknown = unknown || (unlisted(p) && !missing.count(key_of(p)));
  }
  if (!unknown) return;
  listing = read();
  for (const auto& g : status.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) {
      if (unlisted(p)) missing.insert(key_of(p));
    }
  }
  if (missing.size() > 4096) missing.clear();
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
  // Only a container of a pod the kubelet names: a plain docker host has
  // no /var/log/containers to list at every new id.
  Relearn(
      status, new_pids, containers_, containers_missing_,
      [](const GpuProcess& p) -> const std::string& {
        static const std::string kNone;
        return p.pod_uid.empty() ? kNone : p.container_id;
      },
      [](const auto& containers, const std::string& id) {
        return FindContainerById(containers, id) != nullptr;
      },
      [&] { return ReadKubeContainers(ctx); });
}

void ProcessOwnerCache::LearnPods(const CollectContext& ctx, const SystemStatus& status,
                                  bool new_pids) {
  Relearn(
      status, new_pids, pods_, pods_missing_,
      [](const GpuProcess& p) -> const std::string& { return p.pod_uid; },
      [](const auto& pods, const std::string& uid) { return pods.count(uid) > 0; },
      [&] { return ReadKubePods(ctx); });
}

}  // namespace gpudoctor
