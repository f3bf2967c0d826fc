// Pure parser for the dpkg database (/var/lib/dpkg/status): installed
// packages whose name starts with a prefix, with their upstream version.
// Used to read the Fabric Manager package version without running anything.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct DpkgPackage {
  std::string name;              // "nvidia-fabricmanager-535"
  std::string version;           // as recorded: "1:535.183.01-1"
  std::string upstream_version;  // epoch and Debian revision removed: "535.183.01"
};

// Only stanzas whose Status is "install ok installed".
std::vector<DpkgPackage> FindInstalledDpkgPackages(std::string_view status_text,
                                                   std::string_view name_prefix);

// "1:535.183.01-1ubuntu1" -> "535.183.01".
std::string DpkgUpstreamVersion(std::string_view version);

}  // namespace gpudoctor
