// `gpudoctor report --prometheus URL --node NAME`: the same report as from
// the agent's store, built from the node's series in Prometheus (or
// Thanos, Mimir, VictoriaMetrics), for a node whose local store is gone.
// The readings come from gpudoctor's series or dcgm-exporter's (see
// core/metric_fields.h), at the scrape interval (coarser beyond 4000 points
// per series); finding start and end from gpudoctor_finding_active where the
// agent ran, otherwise from the rules run over stretches of the window.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/result.h"
#include "prom/prom_client.h"
#include "report/recorded_report.h"

namespace gpudoctor {

struct PromReportRequest {
  std::string node;               // instance (with or without :port) or host label
  std::vector<std::string> gpus;  // index, bus id or UUID; empty: all
  std::string since;
  std::string from;
  std::string to;
  std::string match;  // extra label selector, as fleet's --match
  Config config;
};

// kNotFound when no series of the node is in the window; kInvalid for a bad
// window or GPU; the client's errors otherwise.
Result<std::unique_ptr<RecordedReport>> BuildPrometheusReport(const PromClient& client,
                                                              const PromReportRequest& request,
                                                              WallTime now);

}  // namespace gpudoctor
