// Minimum, mean and maximum of a series of readings: what the store keeps per
// GPU and field for a window and what a report shows.
#pragma once

#include <cstddef>

namespace gpudoctor {

struct MetricSummary {
  std::size_t count = 0;
  double min = 0;
  double avg = 0;
  double max = 0;
};

}  // namespace gpudoctor
