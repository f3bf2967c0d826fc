// The compact fabric line of `status` and `watch`, and its JSON for
// `status --json`: InfiniBand ports ACTIVE of present (and of expected when
// known), their rates, and the error counter that rose most since an
// earlier reading (watch keeps its first one), e.g.
// "fabric: InfiniBand 8/8 ports ACTIVE (expected 8), 400 Gb/s; worst: mlx5_4
// port 1 link_downed +2 (720/h)". Pure; renderers never read the system.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/gpu_status.h"
#include "facts/network.h"

namespace gpudoctor {

struct FabricSummary {
  unsigned ib_present = 0;
  unsigned ib_active = 0;
  std::optional<unsigned> ib_expected;
  std::optional<double> rate_min_gbps;  // over ACTIVE InfiniBand ports
  std::optional<double> rate_max_gbps;
  unsigned roce_present = 0;
  unsigned roce_active = 0;
  // The judged error counter (knowledge/ib_counters.h) that rose most
  // between the two readings; empty when none rose.
  std::string worst_port;  // "mlx5_4 port 1"
  std::string worst_counter;
  std::uint64_t worst_rise = 0;
  std::optional<double> worst_per_hour;
  unsigned saturated = 0;  // judged counters pinned at their maximum
  // The NVLink fabric (AddNvlinkFabric): GPUs that report a fabric state
  // other than not supported, those registered without error, the worst
  // state among the others ("in_progress", "completed: <status>", ...),
  // health conditions that hold, and GPU pairs without NVLink P2P.
  unsigned nvlink_gpus = 0;
  unsigned nvlink_registered = 0;
  std::string nvlink_worst;
  unsigned nvlink_unhealthy = 0;  // GPUs with a fabric health condition
  unsigned nvlink_pairs_down = 0;
};

// `earlier` may be null (one reading: no rises). Ports are matched by device
// and number. ib_expected is dropped on a node without InfiniBand ports.
FabricSummary SummarizeFabric(const RdmaFacts& latest, const RdmaFacts* earlier,
                              std::optional<unsigned> ib_expected);

// Adds the NVLink fabric of `status` to `s`.
void AddNvlinkFabric(const SystemStatus& status, FabricSummary& s);

// The platform's InfiniBand port count for the GPUs of `status`
// (knowledge/ib_counters.h: 8 on 8-GPU HGX H100/H200/B200), else nullopt.
std::optional<unsigned> PlatformIbPorts(const SystemStatus& status);

// The line, without a newline; empty when there are no RDMA ports and no
// NVLink fabric.
std::string FabricLine(const FabricSummary& s);

nlohmann::ordered_json FabricJson(const FabricSummary& s);

}  // namespace gpudoctor
