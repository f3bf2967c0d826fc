// Shell-style wildcard expansion below the collector root:
// GlobRoot(ctx, "/usr/lib/python3*/site-packages") lists the matching paths
// as the user knows them (without the root prefix), sorted. Each path
// component may hold fnmatch(3) wildcards; hidden entries match only a
// pattern that starts with '.'. Unreadable directories are skipped.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "collect/collect_context.h"

namespace gpudoctor {

std::vector<std::string> GlobRoot(const CollectContext& ctx, std::string_view pattern,
                                  std::size_t limit = 512);

// True when `path` (as the user knows it) is a directory below the root.
bool IsRootDir(const CollectContext& ctx, std::string_view path);

}  // namespace gpudoctor
