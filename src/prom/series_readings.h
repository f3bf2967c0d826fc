// Readings rebuilt from Prometheus series: each series of a field (in
// gpudoctor's or dcgm-exporter's naming, see core/metric_fields.h) adds its
// values to the reading of its node and GPU at each point's time, so the
// same rules as everywhere else run over a node's history in Prometheus.
// dcgm-exporter's Xid gauge (the last code) becomes Xid events where its
// value changes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/config.h"
#include "prom/prom_labels.h"
#include "prom/prom_response.h"
#include "rules/engine/diagnosis_input.h"

namespace gpudoctor {

class SeriesReadings {
 public:
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
    std::map<std::string, GpuHistory> gpus;  // by GpuLabels::Key
    std::vector<KernelEvent> events;
  };
  GpuHistory& GpuOf(const PromSeries& series);
  std::map<std::string, NodeHistory> nodes_;
};

}  // namespace gpudoctor
