#include "parse/ld_so_conf.h"

namespace gpudoctor {
namespace {

std::vector<std::string> SplitAny(std::string_view text, std::string_view seps) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto b = text.find_first_not_of(seps, pos);
    if (b == std::string_view::npos) break;
    auto e = text.find_first_of(seps, b);
    if (e == std::string_view::npos) e = text.size();
    out.emplace_back(text.substr(b, e - b));
    pos = e;
  }
  return out;
}

}  // namespace

LdSoConf ParseLdSoConf(std::string_view text) {
  LdSoConf conf;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    auto words = SplitAny(line, " \t\r");
    if (words.empty()) continue;
    if (words.front() == "include") {
      for (std::size_t i = 1; i < words.size(); ++i) conf.includes.push_back(words[i]);
      continue;
    }
    if (words.front() == "hwcap") continue;
    for (const auto& dir : SplitAny(line, " \t\r:,")) conf.dirs.push_back(dir);
  }
  return conf;
}

std::vector<std::string> SplitPathList(std::string_view text) { return SplitAny(text, ":"); }

}  // namespace gpudoctor
