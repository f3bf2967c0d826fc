// The processes running under given names (/proc/<pid>/comm below the
// root), for `fix --reset-gpu`: the services that hold GPUs open
// (nv-hostengine, dcgm-exporter) or that a reset needs (Fabric Manager).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collect/collect_context.h"

namespace gpudoctor {

struct NamedProcess {
  std::uint32_t pid = 0;
  std::string comm;
};

// The processes whose comm is one of `comms` (the kernel keeps 15 bytes of
// a name: give them as /proc shows them), by pid. Unreadable entries (a
// process that exited) are skipped.
std::vector<NamedProcess> FindProcessesNamed(const CollectContext& ctx,
                                             const std::vector<std::string>& comms);

}  // namespace gpudoctor
