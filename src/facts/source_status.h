// Whether a source of evidence could be read, and why not: every collected
// fact lists the files, services and commands it came from this way.
#pragma once

#include <string>

namespace gpudoctor {

// Whether a source could be read, and why not. `source` names it the way a
// user would look for it ("/proc/stat", "journal", "nvidia-fabricmanager.service").
struct SourceStatus {
  std::string source;
  bool available = false;
  std::string why;  // empty when available
};

}  // namespace gpudoctor
