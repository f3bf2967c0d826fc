// RDMA devices from /sys/class/infiniband: each port's state, physical
// state, rate and link layer. A port whose link layer is "Ethernet" is RoCE.
// Never fails; no /sys/class/infiniband (no RDMA hardware or driver) gives
// no devices and that reason in sources.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "parse/sysfs_net.h"

namespace gpudoctor {

struct RdmaPort {
  unsigned port = 0;
  std::optional<IbPortState> state;       // "4: ACTIVE"
  std::optional<IbPortState> phys_state;  // "5: LinkUp"
  std::optional<double> rate_gbps;
  std::string rate_text;   // "200 Gb/sec (4X HDR)"
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  bool roce = false;       // link_layer == "Ethernet"
  bool active = false;     // state code 4 (ACTIVE)
  std::vector<SourceStatus> sources;
};

struct RdmaDevice {
  std::string name;        // "mlx5_0"
  std::string fw_version;  // fw_ver, when readable
  std::vector<RdmaPort> ports;
};

struct RdmaFacts {
  std::vector<RdmaDevice> devices;
  std::vector<SourceStatus> sources;
};

RdmaFacts ReadRdma(const CollectContext& ctx);

}  // namespace gpudoctor
