// RDMA devices from /sys/class/infiniband: each port's state, physical
// state, rate, link layer and error counters (counters/ and hw_counters/),
// and each device's PCI address, NUMA node, firmware and the GPUs nearest to
// it on the PCI tree. A port whose link layer is "Ethernet" is RoCE.
// Never fails; no /sys/class/infiniband (no RDMA hardware or driver) gives
// no devices and that reason in sources.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "collect/pci_devices.h"
#include "parse/sysfs_net.h"

namespace gpudoctor {

// One counter file: counters/<name> (the IBTA PortCounters) or
// hw_counters/<name> (the driver's own, 64-bit).
struct RdmaCounter {
  std::string name;  // "symbol_error", "rnr_nak_retry_err"
  bool hw = false;   // from hw_counters/
  std::uint64_t value = 0;
};

struct RdmaPort {
  unsigned port = 0;
  std::optional<IbPortState> state;       // "4: ACTIVE"
  std::optional<IbPortState> phys_state;  // "5: LinkUp"
  std::optional<double> rate_gbps;
  std::string rate_text;   // "200 Gb/sec (4X HDR)"
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  bool roce = false;       // link_layer == "Ethernet"
  bool active = false;     // state code 4 (ACTIVE)
  std::vector<RdmaCounter> counters;  // by name, counters/ before hw_counters/
  std::vector<SourceStatus> sources;

  // The counter's value, or nullopt when the port has no such file.
  std::optional<std::uint64_t> Counter(std::string_view name) const;
};

struct RdmaDevice {
  std::string name;        // "mlx5_0"
  std::string fw_version;  // fw_ver, when readable
  std::vector<RdmaPort> ports;
  std::string hca_type = {};    // "MT4129" (ConnectX-7), when readable
  std::string pci_bus_id = {};  // "0000:1a:00.0" from the device link; "" when unknown
  std::optional<int> numa_node = {};
  std::vector<std::string> upstream_ports = {};  // PCI bridges above it, nearest first
  // The GPUs (bus ids) that share the nearest PCI bridge with it, else the
  // GPUs of its NUMA node: the ones whose NCCL traffic this NIC carries.
  std::vector<std::string> nearest_gpus = {};
};

struct RdmaFacts {
  std::vector<RdmaDevice> devices;
  std::vector<SourceStatus> sources;
  std::optional<std::chrono::system_clock::time_point> read_at;  // ctx.now when read
};

RdmaFacts ReadRdma(const CollectContext& ctx);

// Fills each device's nearest_gpus from the GPUs of `pci`. Pure.
void AssignNearestGpus(RdmaFacts& rdma, const PciFacts& pci);

// "mlx5_0 port 1" -- how findings and metrics name a port.
std::string RdmaPortLabel(const RdmaDevice& device, const RdmaPort& port);

}  // namespace gpudoctor
