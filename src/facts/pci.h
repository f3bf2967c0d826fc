// NVIDIA PCI functions as the kernel sees them (sysfs), independent of the
// driver: GPUs with their PCIe link, AER counters, NUMA node, bound driver
// and the bridges above them, and NVSwitches (PciFacts); and the GPUs that
// dropped off the bus or out of NVML (DroppedGpu). collect/pci_devices.h and
// collect/dropped_gpus.h find them; rules and renderers read them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "facts/source_status.h"

namespace gpudoctor {

// What a PCI function is, from its class code.
enum class PciFunctionKind {
  kGpu,       // class 0x0300xx (VGA) or 0x0302xx (3D controller)
  kNvSwitch,  // class 0x0680xx (bridge, other) on an NVIDIA device
  kAudio,     // class 0x0403xx: the HDMI audio function of a graphics card
  kOther,
};

// "gpu", "nvswitch", "audio", "other".
const char* PciFunctionKindName(PciFunctionKind kind);

// One AER counter file (aer_dev_correctable, aer_dev_nonfatal,
// aer_dev_fatal): "RxErr 0\nBadTLP 2\n...\nTOTAL_ERR_COR 5".
struct AerCounters {
  std::map<std::string, std::uint64_t> counters;  // without the TOTAL_ line
  std::uint64_t total = 0;                        // the TOTAL_ERR_* line, else the sum of counters
};

// One NVIDIA GPU or NVSwitch function in /sys/bus/pci/devices.
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

// Why a GPU counts as dropped: on the bus but not in NVML, not answering on
// the bus, or fewer GPUs than expected (collect/dropped_gpus.h).
enum class DropReason {
  kNotInNvml,           // on the bus, missing from NVML
  kNoAnswer,            // does not answer on the bus
  kBelowExpectedCount,  // fewer GPUs than expected
};

// "not_in_nvml", "no_answer", "below_expected_count".
const char* DropReasonName(DropReason reason);

struct DroppedGpu {
  std::string bus_id;  // normalised; empty for kBelowExpectedCount
  DropReason reason = DropReason::kNotInNvml;
  std::string detail;  // one English line with the evidence
};

}  // namespace gpudoctor
