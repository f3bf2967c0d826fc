#include "parse/proc_meminfo.h"

#include "parse/proc_text.h"

namespace gpudoctor {

std::optional<std::uint64_t> MemInfo::Get(std::string_view key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::optional<std::uint64_t> MemInfo::available_bytes() const {
  if (auto available = Get("MemAvailable")) return available;
  auto free = Get("MemFree");
  if (!free) return std::nullopt;
  return *free + Get("Buffers").value_or(0) + Get("Cached").value_or(0);
}

Result<MemInfo> ParseMeminfo(std::string_view text) {
  MemInfo info;
  for (std::string_view line : SplitLines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto words = SplitWords(line.substr(colon + 1));
    if (words.empty()) continue;
    auto value = ParseUnsigned(words[0]);
    if (!value) continue;
    std::uint64_t bytes = *value;
    if (words.size() > 1 && (words[1] == "kB" || words[1] == "KB")) bytes *= 1024;
    info.values[std::string(Trim(line.substr(0, colon)))] = bytes;
  }
  if (!info.total_bytes()) return Error{ErrorCode::kCorrupt, "/proc/meminfo: no MemTotal"};
  return info;
}

}  // namespace gpudoctor
