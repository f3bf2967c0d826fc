#include "collect/root_glob.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>

namespace gpudoctor {
namespace {

std::vector<std::string> SplitComponents(std::string_view pattern) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (pos < pattern.size()) {
    auto end = pattern.find('/', pos);
    if (end == std::string_view::npos) end = pattern.size();
    if (end > pos) parts.emplace_back(pattern.substr(pos, end - pos));
    pos = end + 1;
  }
  return parts;
}

bool HasWildcard(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

}  // namespace

bool IsRootDir(const CollectContext& ctx, std::string_view path) {
  std::error_code ec;
  return std::filesystem::is_directory(UnderRoot(ctx, path), ec);
}

std::vector<std::string> GlobRoot(const CollectContext& ctx, std::string_view pattern,
                                  std::size_t limit) {
  std::vector<std::string> current{""};
  for (const auto& part : SplitComponents(pattern)) {
    std::vector<std::string> next;
    for (const auto& base : current) {
      if (!HasWildcard(part)) {
        const std::string candidate = base + "/" + part;
        std::error_code ec;
        if (std::filesystem::exists(UnderRoot(ctx, candidate), ec)) next.push_back(candidate);
        continue;
      }
      auto names = ListRootDir(ctx, base.empty() ? "/" : base);
      if (!names.ok()) continue;
      for (const auto& name : *names) {
        if (name.front() == '.' && part.front() != '.') continue;
        if (::fnmatch(part.c_str(), name.c_str(), 0) == 0) next.push_back(base + "/" + name);
      }
    }
    if (next.size() > limit) next.resize(limit);
    current = std::move(next);
    if (current.empty()) break;
  }
  if (current.size() == 1 && current.front().empty()) return {};
  std::sort(current.begin(), current.end());
  return current;
}

}  // namespace gpudoctor
