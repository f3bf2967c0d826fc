// Pure parser of /proc/meminfo ("MemTotal:  16310112 kB").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

struct MemInfo {
  // Every line, in bytes ("kB" values multiplied by 1024; unitless counts
  // such as HugePages_Total kept as they are).
  std::map<std::string, std::uint64_t, std::less<>> values;

  std::optional<std::uint64_t> Get(std::string_view key) const;
  std::optional<std::uint64_t> total_bytes() const { return Get("MemTotal"); }
  // MemAvailable, or (kernels before 3.14) MemFree + Buffers + Cached.
  std::optional<std::uint64_t> available_bytes() const;
  std::optional<std::uint64_t> swap_total_bytes() const { return Get("SwapTotal"); }
  std::optional<std::uint64_t> swap_free_bytes() const { return Get("SwapFree"); }
};

// Error when no line parses or MemTotal is missing.
Result<MemInfo> ParseMeminfo(std::string_view text);

}  // namespace gpudoctor
