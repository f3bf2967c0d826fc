#include "render/agent_snapshot.h"

namespace gpudoctor {

void LatencyHistogram::Observe(double seconds) {
  for (std::size_t i = 0; i < kSampleLatencyBuckets.size(); ++i) {
    if (seconds <= kSampleLatencyBuckets[i]) ++cumulative[i];
  }
  ++count;
  sum_seconds += seconds;
}

}  // namespace gpudoctor
