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
#include "facts/network.h"
#include "parse/sysfs_net.h"

namespace gpudoctor {

RdmaFacts ReadRdma(const CollectContext& ctx);

// Fills each device's nearest_gpus from the GPUs of `pci`. Pure.
void AssignNearestGpus(RdmaFacts& rdma, const PciFacts& pci);

}  // namespace gpudoctor
