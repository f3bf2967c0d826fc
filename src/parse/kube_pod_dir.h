// The Kubernetes pod a directory of /var/log/pods names, and the container a
// link of /var/log/containers names. The kubelet keeps one directory per pod
// in the first, "<namespace>_<pod-name>_<pod-uid>", and one link per
// container in the second, "<pod-name>_<namespace>_<container-name>-
// <container-id>.log"; the cgroup path of a container gives only the pod's
// uid and the container's id, so this is where their names come from on the
// node itself, without asking the API server.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

struct KubePodRef {
  std::string namespace_name;
  std::string name;
  std::string uid;  // as the cgroup path shows it: lower case, with dashes
};

// Pure. std::nullopt unless `dir_name` is three non-empty parts joined by
// '_' (names and namespaces are DNS names, which hold no '_'), the first two
// of lower-case letters, digits, '-' and '.' that start and end with a
// letter or digit, the uid of hex digits and '-'.
std::optional<KubePodRef> ParsePodLogDirName(std::string_view dir_name);

struct KubeContainerRef {
  std::string pod_name;
  std::string namespace_name;
  std::string container_name;
  std::string container_id;  // the runtime's 64 lower-case hex digits
};

// Pure. std::nullopt unless `file_name` is "<pod>_<namespace>_<container>-
// <id>.log" with the pod, namespace and container names as above and the id
// 64 lower-case hex digits.
std::optional<KubeContainerRef> ParseContainerLogName(std::string_view file_name);

}  // namespace gpudoctor
