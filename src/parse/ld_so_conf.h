// Pure parser for /etc/ld.so.conf and its included files: the library
// directories they name and the include patterns to expand. No I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct LdSoConf {
  std::vector<std::string> dirs;      // in file order, as written
  std::vector<std::string> includes;  // "include" patterns, as written (may be relative)
};

// Comments (#...) and "hwcap" lines are ignored; a line may list several
// directories separated by whitespace, ':' or ','.
LdSoConf ParseLdSoConf(std::string_view text);

// Splits a PATH-like list ("a:b::c") into its non-empty entries.
std::vector<std::string> SplitPathList(std::string_view text);

}  // namespace gpudoctor
