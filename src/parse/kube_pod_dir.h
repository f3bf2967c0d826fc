// The Kubernetes pod a directory of /var/log/pods names. The kubelet keeps
// one directory per pod there, "<namespace>_<pod-name>_<pod-uid>"; the cgroup
// path of a container gives only the uid, so this is where the pod's name and
// namespace come from on the node itself, without asking the API server.
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

}  // namespace gpudoctor
