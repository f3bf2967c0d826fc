// What `gpudoctor fleet` shows: one row per node and GPU over a window, read
// from Prometheus (gpudoctor's agent series, or dcgm-exporter's alone, where
// the rules run over the series), plus one row per node.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_event.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

enum class FleetSource { kGpudoctor, kDcgmExporter };
const char* FleetSourceName(FleetSource source);

struct FleetFinding {
  std::string id;
  Severity severity = Severity::kInfo;
  Text title;  // empty when the agent's series carry none (gpudoctor source)
  bool active_now = false;
  RecoveryAction recommended = RecoveryAction::kNone;
};

struct FleetGpuRow {
  std::string node;
  std::string pci_bus_id;  // normalised; may be empty when only an index is known
  std::string gpu;         // the `gpu` label (index)
  std::string uuid;
  std::string model;
  FleetSource source = FleetSource::kGpudoctor;
  std::optional<Severity> verdict_now;  // nullopt: no sample at the window's end
  Severity worst = Severity::kOk;       // worst verdict in the window
  std::vector<FleetFinding> findings;   // seen in the window, worst first
  std::map<int, double> xid_counts;     // code -> events in the window
  std::map<std::string, double> throttled_seconds;  // reason -> seconds in the window
  // The strictest recovery action of its findings active now.
  RecoveryAction recommended = RecoveryAction::kNone;
  bool lost_now = false;
  bool lost_in_window = false;
  std::optional<double> max_temperature_c;
  std::optional<double> max_power_w;
};

struct FleetNodeRow {
  std::string node;                // display name (see prom/node_identity.h)
  std::vector<std::string> names;  // every name its series carried in the window, node first
  FleetSource source = FleetSource::kGpudoctor;
  std::optional<double> last_sample_age_s;  // nullopt: never in the window
  bool stale = false;                       // stopped reporting: a finding of its own
  Severity worst = Severity::kOk;
  // The strictest recovery action of the node's findings active now, its
  // GPUs' and host-wide ones.
  RecoveryAction recommended = RecoveryAction::kNone;
  std::vector<FleetFinding> findings;  // host-wide ones, and "stopped reporting"
  // Worst verdict per stretch of the window, oldest first (nullopt: no data).
  std::vector<std::optional<Severity>> strip;
};

struct FleetView {
  WallTime from;
  WallTime to;
  std::string prometheus_url;
  std::vector<FleetNodeRow> nodes;  // worst first, then by name
  std::vector<FleetGpuRow> gpus;    // worst first, then node and bus id
  int queries = 0;                  // sent to Prometheus
  std::vector<std::string> notes;   // warnings, partial answers, what dcgm data lacks
  double stale_after_s = 0;
  // The summary line.
  int critical = 0;
  int warning = 0;
  int stale = 0;
};

}  // namespace gpudoctor
