#include "render/agent_snapshot.h"

namespace gpudoctor {

void LatencyHistogram::Observe(double latency_s) {
  for (std::size_t i = 0; i < kSampleLatencyBuckets.size(); ++i) {
    if (latency_s <= kSampleLatencyBuckets[i]) ++cumulative[i];
  }
  ++count;
  sum_seconds += latency_s;
}

}  // namespace gpudoctor
