// The Kubernetes pods of this node by uid, from the kubelet's log
// directories <root>/var/log/pods/<namespace>_<name>_<uid>/ (see
// parse/kube_pod_dir.h). Not a Kubernetes node, or the directory not mounted
// into the agent's container: an empty map, and pods stay known by uid only.
#pragma once

#include <map>
#include <string>

#include "collect/collect_context.h"
#include "parse/kube_pod_dir.h"

namespace gpudoctor {

inline constexpr const char* kKubePodLogDir = "/var/log/pods";

// uid -> pod. Entries that are not a pod directory's name are skipped. Never
// fails: an absent or unreadable directory gives an empty map.
std::map<std::string, KubePodRef> ReadKubePods(const CollectContext& ctx);

}  // namespace gpudoctor
