#include "core/metric_names.h"

namespace gpudoctor {

std::optional<MetricNames> ParseMetricNames(std::string_view text) {
  if (text == "gpudoctor") return MetricNames::kGpudoctor;
  if (text == "dcgm") return MetricNames::kDcgm;
  if (text == "both") return MetricNames::kBoth;
  return std::nullopt;
}

const char* MetricNamesText(MetricNames names) {
  switch (names) {
    case MetricNames::kDcgm:
      return "dcgm";
    case MetricNames::kBoth:
      return "both";
    case MetricNames::kGpudoctor:
      break;
  }
  return "gpudoctor";
}

}  // namespace gpudoctor
