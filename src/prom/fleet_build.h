// `gpudoctor fleet`: the fleet's GPUs over a window, from Prometheus, in a
// bounded number of queries that aggregate in PromQL (not a loop per node).
// Nodes with gpudoctor's agent give their verdicts, findings, Xid and
// throttle counters directly; nodes with dcgm-exporter's series alone get
// the rules run over their series, bucketed into readings.
#pragma once

#include <chrono>
#include <string>

#include "core/config.h"
#include "core/result.h"
#include "prom/fleet_view.h"
#include "prom/prom_client.h"

namespace gpudoctor {

struct FleetRequest {
  WallTime from;
  WallTime to;
  std::string match;  // --match: one label selector, or empty
  // A node whose latest sample is older than this at the window's end is stale.
  std::chrono::seconds stale_after{300};
  // The scrape interval the subqueries resolve at (dcgm series) and the
  // step of dcgm-exporter's Xid gauge.
  std::chrono::seconds resolution{60};
  int strip_buckets = 24;  // stretches in a node's verdict strip and dcgm readings
  Config config;
};

// Fails (one line) only when Prometheus cannot answer at all; a query that
// fails while others succeed becomes a note.
Result<FleetView> BuildFleetView(const PromClient& client, const FleetRequest& request);

}  // namespace gpudoctor
