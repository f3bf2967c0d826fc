// The Kubernetes pods of this node by uid, from the kubelet's log
// directories <root>/var/log/pods/<namespace>_<name>_<uid>/, and its
// containers by id, from the kubelet's links <root>/var/log/containers/
// <pod>_<namespace>_<container>-<id>.log (see parse/kube_pod_dir.h; only the
// names are read, never a link's target). Not a Kubernetes node, or the
// directory not mounted into the agent's container: an empty map, and pods
// and containers stay known by uid and id only.
#pragma once

#include <map>
#include <string>

#include "collect/collect_context.h"
#include "parse/kube_pod_dir.h"

namespace gpudoctor {

inline constexpr const char* kKubePodLogDir = "/var/log/pods";
inline constexpr const char* kKubeContainerLogDir = "/var/log/containers";

// uid -> pod. Entries that are not a pod directory's name are skipped. Never
// fails: an absent or unreadable directory gives an empty map.
std::map<std::string, KubePodRef> ReadKubePods(const CollectContext& ctx);

// Full 64-digit container id -> container. The same: never fails.
std::map<std::string, KubeContainerRef> ReadKubeContainers(const CollectContext& ctx);

// The container whose full id starts with `short_id` (the cgroup path's 12
// digits), or nullptr; an empty id finds none.
const KubeContainerRef* FindContainerById(const std::map<std::string, KubeContainerRef>& containers,
                                          const std::string& short_id);

}  // namespace gpudoctor
