// `fleet`'s view assembled from the answers to its queries: the agent's
// verdicts, findings and counters per GPU row, and the rules (through
// DiagnoseWindow) over dcgm-exporter's series of nodes without the agent,
// on every core.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "prom/fleet_build.h"
#include "prom/fleet_queries.h"
#include "prom/node_identity.h"
#include "prom/prom_labels.h"
#include "prom/series_readings.h"

namespace gpudoctor {

class FleetAssembly {
 public:
  FleetAssembly(const FleetRequest& r, std::chrono::seconds bucket, const NodeIdentities& ids)
      : request_(r), bucket_(bucket), grid_start_(GridStart(r, bucket)), ids_(ids) {}

  std::string NodeOf(const PromSeries& s) const { return ids_.NodeOf(s.labels); }
  FleetGpuRow& Row(const PromSeries& s, FleetSource source) {
    return Row(NodeOf(s), GpuOfLabels(s.labels), source);
  }
  FleetGpuRow& Row(const std::string& node, const GpuLabels& g, FleetSource source) {
    return RowAt(node, g.Key(), g, source);
  }
  FleetGpuRow& RowAt(const std::string& node, const std::string& key, const GpuLabels& g,
                     FleetSource source) {
    FleetGpuRow& row = rows_[{node, key}];
    if (row.node.empty()) {
      row.node = node;
      row.pci_bus_id = g.pci_bus_id;
      row.gpu = g.gpu;
      row.uuid = g.uuid;
      row.model = g.model;
      row.source = source;
    }
    return row;
  }
  FleetNodeRow& Node(const std::string& name, FleetSource source) {
    FleetNodeRow& n = nodes_[name];
    if (n.node.empty()) {
      n.node = name;
      n.source = source;
      n.strip.assign(static_cast<std::size_t>(std::max(1, request_.strip_buckets)), std::nullopt);
    }
    return n;
  }
  bool HasAgent(const std::string& node) const {
    auto it = nodes_.find(node);
    return it != nodes_.end() && it->second.source == FleetSource::kGpudoctor;
  }
  // The strip's stretch a point at `t` (seconds since the epoch) closes.
  std::optional<std::size_t> BucketOf(double t) const;

  void AddAgentAnswers(const std::vector<Result<PromAnswer>>& a);
  void AddDcgmAnswers(const std::vector<Result<PromAnswer>>& a);
  FleetView Finish(FleetView view);

 private:
  // A node and its series of the dcgm reads (query id, series), in query order.
  using DcgmNodeSeries =
      std::pair<const std::string, std::vector<std::pair<std::size_t, const PromSeries*>>>;
  void DiagnoseDcgmSeries(const DcgmNodeSeries& node_series);
  void DiagnoseDcgmNode(const std::string& node, const SeriesReadings& readings);

  const FleetRequest& request_;
  std::chrono::seconds bucket_;
  WallTime grid_start_;  // the oldest stretch's start (GridStart)
  const NodeIdentities& ids_;
  std::map<std::pair<std::string, std::string>, FleetGpuRow> rows_;
  std::map<std::string, FleetNodeRow> nodes_;
  std::map<std::string, std::vector<FleetFinding>> host_findings_;
  std::map<std::pair<std::string, std::string>, double> dcgm_fresh_;  // node, UUID -> sample time
};

}  // namespace gpudoctor
