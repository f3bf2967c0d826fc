// NVIDIA PCI functions as the kernel sees them in /sys/bus/pci/devices,
// independent of the driver: GPUs (VGA / 3D class) with their PCIe link
// (current and max speed and width), AER error counters, NUMA node and bound
// driver; and NVSwitches (bridge class) for the fabric manager check. The
// HDMI audio functions of graphics cards are ignored.
//
// This is how a GPU that fell off the bus is caught without NVML and without
// any Xid: it stays listed here (often with revision 0xff, or config space
// reading all ones) while NVML no longer shows it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "facts/pci.h"
#include "parse/sysfs_pci.h"

namespace gpudoctor {

// Never fails; an unreadable /sys/bus/pci/devices leaves both lists empty
// with the reason in sources.
PciFacts ReadPciDevices(const CollectContext& ctx);

// One device directory (the name is its bus id); std::nullopt when it is
// not an NVIDIA GPU or NVSwitch.
std::optional<PciDevice> ReadPciDevice(const CollectContext& ctx, const std::string& name);

}  // namespace gpudoctor
