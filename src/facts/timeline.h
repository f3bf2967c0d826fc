// What happened over a recorded window, beyond one diagnosis: when each
// finding started and ended (the agent evaluates the rules continuously), and
// how long each GPU spent throttled per clock-event reason. `report` fills it
// from the store; the JSON, text, Markdown and HTML renderers show it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_event.h"
#include "core/recovery_action.h"
#include "core/severity.h"
#include "core/text.h"

namespace gpudoctor {

// One stretch of time during which a finding was active.
struct FindingInterval {
  std::string finding_id;          // "thermal.slowdown"
  Severity severity = Severity::kWarning;  // the worst seen during the interval
  std::vector<std::string> gpus;   // pci bus ids; empty: host-wide
  Text title;                      // the finding's title when it was last seen
  WallTime start;
  std::optional<WallTime> end;     // nullopt: still active at the window's end
  // The strictest recovery action seen during the interval; nullopt: not
  // recorded (a store written before version 4).
  std::optional<RecoveryAction> recommended;
};

// Seconds one GPU spent with a clock-event reason active, per reason name as
// ClockReasonNames gives them ("sw_thermal_slowdown", "hw_power_brake", ...).
struct ThrottleTime {
  std::string pci_bus_id;
  std::map<std::string, double> seconds_by_reason;
  double sampled_seconds = 0;  // the time covered by samples, for a share
};

// A change of state seen between two readings of a recorded window: an
// RDMA port going down or coming back, a GPU's NVLink fabric registration
// (state, status, health) changing.
struct StateChange {
  WallTime at;                    // the first reading with the new state
  std::string kind;               // "rdma_port" or "nvlink_fabric"
  std::string subject;            // "mlx5_0 port 1", or the GPU's bus id
  std::vector<std::string> gpus;  // the GPU (fabric), or the GPUs next to the port
  std::string from;               // "4: ACTIVE"; "completed, Success"
  std::string to;
  // Ports: "down" (left ACTIVE), "drop" (left ACTIVE and stayed down for
  // [network] ib_drop_minutes or longer), "flap" (ACTIVE again after a
  // down); "" for other changes (a port never seen ACTIVE, fabric changes).
  std::string mark;
  std::optional<double> down_s;  // flap: how long it was down; drop: so far
};

// One step between two readings of a port: the rise of its error counters
// (knowledge/ib_counters.h, fatal and warning classes) per second.
struct PortErrorRate {
  WallTime at;  // the step's end
  double errors_per_s = 0;
};

// An RDMA port over a recorded window: its marks and error rates.
struct RdmaPortSeries {
  std::string port;  // "mlx5_0 port 1"
  std::string link_layer;
  std::string rate_text;
  std::vector<std::string> gpus;  // next to it
  unsigned flaps = 0;
  unsigned drops = 0;
  std::vector<PortErrorRate> error_rates;  // one per step, in time order
  double max_errors_per_s = 0;
  // The error counters that rose over the window, by how much (resets and
  // saturated steps count nothing).
  std::map<std::string, std::uint64_t> increases;
};

struct Timeline {
  std::vector<FindingInterval> findings;  // by start time
  std::vector<ThrottleTime> throttled;    // one per GPU with samples
  std::vector<StateChange> changes;       // by time
  std::vector<RdmaPortSeries> rdma_ports;  // per port recorded in the window
};

}  // namespace gpudoctor
