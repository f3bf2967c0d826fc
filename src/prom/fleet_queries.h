// `fleet`'s queries: the plan of PromQL reads (the agent's series, then
// dcgm-exporter's bucketed reads), run a few at a time, and the exact last
// sample times of GPUs silent at the window's end. BuildFleetView
// (prom/fleet_build.h) turns the answers into the fleet's view.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/result.h"
#include "prom/fleet_build.h"
#include "prom/prom_client.h"

namespace gpudoctor {

struct FleetQuery {
  std::string expr;
  bool range = false;
  WallTime at;    // instant
  WallTime from;  // range
  WallTime to;
  std::chrono::seconds step{60};
};

enum FleetQueryId {
  kVerdictNow,
  kVerdictWorst,
  kAgentLastSample,
  kFindingsWindow,
  kFindingsNow,
  kCountersMax,
  kCountersStart,
  kLostWindow,
  kLostNow,
  kPeaks,
  kStrip,
  kDcgmLastSeen,
  kDcgmXid,
  kDcgmXidCount,  // and DCGM_EXP_GPU_HEALTH_STATUS's failing and warning watches
  kQueryCount,
  // Then the dcgm-exporter field reads (DcgmExtremesExprs, DcgmBucketEndSelectors).
  kFirstDcgmRead = kQueryCount
};

// "30s": a whole number of seconds, at least 1, as PromQL takes it.
std::string FleetSeconds(std::chrono::seconds s);

// The start of the oldest stretch. Stretches are laid back from the
// window's end, so that the newest always ends at it; when the window is no
// whole number of stretches the oldest begins a little before the window.
inline WallTime GridStart(const FleetRequest& r, std::chrono::seconds bucket) {
  return r.to - bucket * static_cast<long>(r.strip_buckets);
}

std::vector<FleetQuery> PlanQueries(const FleetRequest& r, const std::string& m,
                                    std::chrono::seconds bucket);

// Every query of the plan, at most a few at once; answers in plan order.
std::vector<Result<PromAnswer>> RunAll(const PromClient& client,
                                       const std::vector<FleetQuery>& queries);

// Label sets without __name__ (and the field label the extremes' reads
// add), to pair a counter's value at the window's start with its maximum in
// it, and a GPU's temperature read with its last sample's time.
std::string SeriesIdentity(const PromSeries& s);

// The exact time of the last sample of each GPU whose temperature series
// has data in the window but no sample at its end (kDcgmLastSeen does not
// hold it): its last sample lies in its last stretch with data, which ends
// at T, and nothing of it in the stretch after T (else a point at T + bucket
// would show it); after the last point, up to the window's end, the range
// reads have no point, so there it may have samples. For each group of such
// ends [lo, hi], one instant read at `at` = min(window end, hi + bucket) of
// the group's GPUs (by UUID where they have one): timestamp(X) (the newest
// sample within the lookback), or the newest that a subquery at the scrape
// resolution (below the engines' 5 min lookback) finds back to the stretch
// before lo. A GPU's time is taken only from its own group's read, so a
// failed read leaves its GPUs at their stretch's end, never at an older
// sample another group's read saw. Ends outside the window (a malformed
// answer) are left out. The times join kDcgmLastSeen's answer; the
// failures' messages are returned.
std::vector<std::string> LastSamplesOfSilentGpus(const PromClient& client, const FleetRequest& r,
                                                 std::chrono::seconds bucket, const std::string& m,
                                                 std::vector<Result<PromAnswer>>& a);

}  // namespace gpudoctor
