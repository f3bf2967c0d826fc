// Shared pieces of the `facts --json` renderers for host, PCI and network
// evidence: optional values as null, and the list of sources with their
// availability. Include only from render/*.cpp (pulls in nlohmann/json).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "facts/source_status.h"

namespace gpudoctor::facts_json {

template <typename T>
nlohmann::ordered_json OrNull(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

// [{"source": "/proc/stat", "available": true}, {"source": ..., "available":
// false, "why": "..."}]
nlohmann::ordered_json Sources(const std::vector<SourceStatus>& sources);

}  // namespace gpudoctor::facts_json
