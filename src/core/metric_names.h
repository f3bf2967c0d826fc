// Which metric names the agent's /metrics serves: gpudoctor's own
// (gpudoctor_*, base units), dcgm-exporter's (DCGM_FI_*, its units and
// labels; deploy/prometheus/DCGM_NAMES.md), or both.
#pragma once

#include <optional>
#include <string_view>

namespace gpudoctor {

enum class MetricNames { kGpudoctor, kDcgm, kBoth };

// "gpudoctor", "dcgm" or "both"; std::nullopt for anything else.
std::optional<MetricNames> ParseMetricNames(std::string_view text);
const char* MetricNamesText(MetricNames names);

// Per-process series per GPU (the processes holding the most memory), so
// that the number of series stays bounded on a GPU shared by many.
inline constexpr unsigned kDefaultTopProcesses = 10;
inline constexpr unsigned kMaxTopProcesses = 1000;

}  // namespace gpudoctor
