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
#include "parse/sysfs_pci.h"

namespace gpudoctor {

struct PciDevice {
  std::string bus_id;  // normalised "0000:3b:00.0"
  PciFunctionKind kind = PciFunctionKind::kOther;
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::uint32_t class_code = 0;
  std::optional<std::uint32_t> revision;
  // False when the device no longer answers on the bus: revision 0xff,
  // vendor/device 0xffff, or config space reading all ones.
  bool answers = true;
  std::string no_answer_detail;  // which file showed it

  std::optional<double> link_speed_current_gt_s;
  std::optional<double> link_speed_max_gt_s;
  std::optional<int> link_gen_current;
  std::optional<int> link_gen_max;
  std::optional<int> link_width_current;
  std::optional<int> link_width_max;

  std::optional<AerCounters> aer_correctable;
  std::optional<AerCounters> aer_nonfatal;
  std::optional<AerCounters> aer_fatal;

  std::optional<int> numa_node;  // -1 in sysfs ("no NUMA") becomes nullopt
  std::string driver;            // bound driver ("nvidia", "vfio-pci"), "" when none
  // The PCIe bridges above it, nearest first (the port its link hangs off,
  // then any switch ports, then the root port), from the sysfs link.
  std::vector<std::string> upstream_ports;

  std::vector<SourceStatus> sources;  // files of this device that could not be read
};

struct PciFacts {
  std::vector<PciDevice> gpus;        // by bus id
  std::vector<PciDevice> nvswitches;  // by bus id
  std::vector<SourceStatus> sources;  // /sys/bus/pci/devices itself
};

// Never fails; an unreadable /sys/bus/pci/devices leaves both lists empty
// with the reason in sources.
PciFacts ReadPciDevices(const CollectContext& ctx);

// One device directory (the name is its bus id); std::nullopt when it is
// not an NVIDIA GPU or NVSwitch.
std::optional<PciDevice> ReadPciDevice(const CollectContext& ctx, const std::string& name);

// Why the link runs below what it can do: "x8 of x16", "Gen1 of Gen4", or
// both joined by ", "; empty when not degraded or unknown. Note that many
// GPUs lower the generation at idle to save power: judge the generation
// under load; the width normally stays fixed.
std::string PcieLinkDegradation(const PciDevice& device);
// Which GPU a PCIe AER report naming this bus id concerns: each GPU maps to
// itself, and each bridge above exactly one of the GPUs maps to that GPU
// (a port shared by several GPUs, a switch's upstream port, maps to none).
// The kernel often reports a GPU's link failure only from the port above it
// ("pcieport 0000:00:03.0: AER: ... error received: 0000:00:03.0").
std::map<std::string, std::string> AerOwnerOfBus(const PciFacts& facts);

inline bool PcieLinkDegraded(const PciDevice& device) {
  return !PcieLinkDegradation(device).empty();
}

}  // namespace gpudoctor
