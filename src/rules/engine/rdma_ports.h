// The RDMA ports over the window, for the network.rdma_* rules and the
// NCCL correlation: each port of
// the latest reading with its earlier readings (DiagnosisInput::rdma_history),
// and how a counter grew across them, resets and saturation accounted for.
// Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

struct RdmaPortReading {
  std::optional<WallTime> at;
  const RdmaPort* port = nullptr;
};

struct RdmaPortHistory {
  const RdmaDevice* device = nullptr;     // of the latest reading
  const RdmaPort* port = nullptr;         // the latest reading
  std::vector<RdmaPortReading> readings;  // oldest first, the latest last
};

// Every port of input.network->rdma, with its readings; empty without network facts.
std::vector<RdmaPortHistory> RdmaPortHistories(const DiagnosisInput& input);

// A counter across the readings. Between two readings a lower value is a
// reset (the counters were cleared, the driver reloaded): the new value is a
// new baseline and no rise is counted for that step. A step whose both ends
// sit at the counter's maximum (knowledge/ib_counters.h) counts nothing
// either: the counter is saturated and its rate unknown.
struct RdmaCounterGrowth {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::uint64_t increase = 0;  // sum of the rises
  unsigned rising_steps = 0;   // steps in which it rose
  unsigned steps = 0;          // steps with a value at both ends
  unsigned resets = 0;
  bool saturated = false;  // the latest value is the counter's maximum
  double span_s = 0;       // from the first to the last reading with a time
  // Rises per hour over span_s; nullopt when the span is unknown or zero.
  std::optional<double> PerHour() const;
};

// nullopt when the port has no such counter in its latest reading.
std::optional<RdmaCounterGrowth> GrowthOfCounter(const RdmaPortHistory& h, std::string_view name);

// "mlx5_0 port 1 (InfiniBand, 400 Gb/sec (4X NDR); next to GPUs 0000:18:00.0, 0000:2a:00.0)".
std::string RdmaPortDescription(const RdmaPortHistory& h);

// The ports that are compute ports: InfiniBand link layer (RoCE and bonded
// Ethernet devices serve storage and management on the standard platforms).
bool IsComputePort(const RdmaPort& p);

// How a counter's growth is judged (network.rdma_errors): critical when a
// fatal-class counter rose (knowledge/ib_counters.h) or symbol errors exceed
// ib.symbol_errors_per_hour (more than that many in the window, or that rate
// over at least ten minutes); a warning when a warning-class counter rose by
// ib.error_count or more, steadily (in at least two steps when there are
// several); nullopt otherwise.
std::optional<Severity> JudgeRdmaCounter(const RdmaCounterGrowth& g, std::string_view name,
                                         const IbConfig& ib);

// A port's outages over its readings: flaps (down, then ACTIVE again) and
// the current outage, if any, after it was seen ACTIVE.
struct RdmaPortOutages {
  unsigned flaps = 0;
  std::optional<WallTime> last_down;  // when the last outage was first seen
  bool down_now = false;
  double down_now_s = 0;  // how long the current outage has lasted
};
RdmaPortOutages OutagesOf(const RdmaPortHistory& h);

// What went wrong with the port over the window, one phrase each ("not
// ACTIVE (1: DOWN)", "went down and came back 2 time(s)", "link_downed rose
// by 2"); empty for a healthy port. For correlations (NCCL timeouts).
std::vector<std::string> RdmaPortTrouble(const RdmaPortHistory& h, const IbConfig& ib);

// The compute ports the node should have: [network] ib_ports / ib_rate_gbps,
// else the platform default for its GPUs (8 x 400 Gb/s on 8-GPU HGX H100,
// H200, B200). `source` says which ("[network] ib_ports", "HGX H100: NVIDIA
// DGX H100 datasheet ..."). Either number may be unset.
struct ExpectedIbPorts {
  std::optional<unsigned> ports;
  std::optional<double> rate_gbps;
  std::string source;
  bool configured = false;  // the port count is from the configuration file, not a default
};
ExpectedIbPorts ExpectedComputePorts(const DiagnosisInput& input);

}  // namespace gpudoctor
