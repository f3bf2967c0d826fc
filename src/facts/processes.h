// Who is behind a process: its command line, user and container or
// Kubernetes pod (ProcessInfo, for the pids NVML reports), and the container
// a cgroup path names (ContainerRef). collect/process_info.h reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpudoctor {

// Who runs a process, as far as the cgroup path tells.
struct ContainerRef {
  std::string runtime;       // "docker", "containerd", "cri-o", "podman", "" when unknown
  std::string container_id;  // first 12 hex digits, "" when none
  std::string pod_uid;       // Kubernetes pod uid with dashes, "" when none
};

struct ProcessInfo {
  std::uint32_t pid = 0;
  bool visible = false;
  std::string why_not_visible;  // set when !visible
  std::string comm;             // /proc/<pid>/comm
  std::string cmdline;          // NUL separators turned into spaces
  std::optional<std::uint32_t> uid;
  std::string user;                       // from /etc/passwd; empty when the uid has no entry
  std::string cgroup_path;                // the v2 path, else the first v1 one
  std::optional<ContainerRef> container;  // docker / containerd / pod, when the path names one
};

}  // namespace gpudoctor
