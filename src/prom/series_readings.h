// Readings rebuilt from Prometheus series: each series of a field (in
// gpudoctor's or dcgm-exporter's naming, see core/metric_fields.h) adds its
// values to the reading of its node and GPU at each point's time, so the
// same rules as everywhere else run over a node's history in Prometheus.
// dcgm-exporter's Xid gauge (the last code) becomes Xid events where its
// value changes.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/config.h"
#include "facts/diagnosis_input.h"
#include "prom/prom_labels.h"
#include "prom/prom_response.h"

namespace gpudoctor {

class SeriesReadings {
 public:
  // `node_of` names the node a series belongs to (NodeIdentities::NodeOf
  // ties a machine's series served under different names).
  using NodeNamer = std::function<std::string(const PromLabels&)>;
  explicit SeriesReadings(NodeNamer node_of = NodeOfLabels) : node_of_(std::move(node_of)) {}

  // A series whose field name is `series_name` (the __name__, or the label
  // a query copied it to). Series of no known field, and a MIG GPU
  // instance's series of its own memory and GPM figures, are ignored; its
  // copies of the GPU's other fields count as the GPU's.
  void AddFieldSeries(const PromSeries& series, const std::string& series_name);
  // DCGM_FI_DEV_XID_ERRORS sampled every step_s (only its non-zero points):
  // an event at each point whose code differs from the point before, or
  // that follows a gap (the gauge was 0 or absent). Points before
  // `counted_from` only set the code a later point is compared with. The
  // series of a MIG GPU's instances give each event once.
  void AddDcgmXidSeries(const PromSeries& series, double step_s, double counted_from_s);
  // DCGM_EXP_XID_ERRORS_COUNT{xid}: how many Xids of that code in the
  // exporter's sliding window (window_size_in_ms); each rise is that many
  // events.
  void AddDcgmXidCountSeries(const PromSeries& series, double step_s, double counted_from_s);

  // DCGM_EXP_GPU_HEALTH_STATUS{health_watch} (its non-zero points): each
  // point marks the watch warning (10) or failing (20) in that reading.
  void AddDcgmHealthSeries(const PromSeries& series);

  // gpudoctor's own series beyond the plain fields: the clock-event reason
  // flags (1 while a reason holds) set the reading's mask, the state flags
  // its state, and each rise of an Xid counter becomes that many events.
  void AddClockReasonSeries(const PromSeries& series);
  void AddGpuStateSeries(const PromSeries& series);
  // The counter's range query starts one step before the window.
  void AddXidCounterSeries(const PromSeries& series, double range_start_s, double step_s);

  std::vector<std::string> Nodes() const;
  // The node's readings (time order, one per distinct point time) and
  // events, ready for Diagnose; nothing read: an input without GPUs.
  DiagnosisInput InputFor(const std::string& node, const Config& config, WallTime from,
                          WallTime to) const;

 private:
  struct GpuHistory {
    GpuLabels labels;
    std::map<double, GpuStatus> at;  // point time (Unix s) -> reading
  };
  struct NodeHistory {
    std::map<std::string, GpuHistory> gpus;     // by the key GpuOf gives
    std::map<std::string, std::string> by_uuid;  // UUID -> key
    std::vector<KernelEvent> events;  // pci_bus_id: the GPU's key until InputFor
  };
  // The GPU's history and its key within the node.
  std::pair<GpuHistory*, std::string> GpuOf(const PromSeries& series);
  void AddXidEvent(const PromSeries& series, double time_s, int code, std::size_t count,
                   std::string message);
  NodeNamer node_of_;
  std::map<std::string, NodeHistory> nodes_;
};

}  // namespace gpudoctor
