// The directories the dynamic loader searches for libraries, as seen below
// the collector root: the distribution defaults, the NVIDIA container paths,
// /etc/ld.so.conf with its includes, and (only when the root is "/")
// LD_LIBRARY_PATH. Used to find libnvidia-ml, libcuda and libcudart files.
#pragma once

#include <string>
#include <vector>

#include "collect/collect_context.h"

namespace gpudoctor {

struct LibraryDir {
  std::string path;    // as the user knows it: "/usr/lib/x86_64-linux-gnu"
  std::string origin;  // "default", "/etc/ld.so.conf.d/cuda.conf", "LD_LIBRARY_PATH"
};

// Existing directories only, each once (the first origin wins; directories
// that resolve to the same place, like /lib -> /usr/lib, are listed once).
// Records /etc/ld.so.conf readability in `sources`.
std::vector<LibraryDir> LibrarySearchDirs(const CollectContext& ctx,
                                          std::vector<SourceStatus>* sources);

}  // namespace gpudoctor
