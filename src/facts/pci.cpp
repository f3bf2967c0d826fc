#include "facts/pci.h"

namespace gpudoctor {

const char* PciFunctionKindName(PciFunctionKind kind) {
  switch (kind) {
    case PciFunctionKind::kGpu:
      return "gpu";
    case PciFunctionKind::kNvSwitch:
      return "nvswitch";
    case PciFunctionKind::kAudio:
      return "audio";
    case PciFunctionKind::kOther:
      return "other";
  }
  return "other";
}

const char* DropReasonName(DropReason reason) {
  switch (reason) {
    case DropReason::kNotInNvml:
      return "not_in_nvml";
    case DropReason::kNoAnswer:
      return "no_answer";
    case DropReason::kBelowExpectedCount:
      return "below_expected_count";
  }
  return "not_in_nvml";
}

std::map<std::string, std::string> AerOwnerOfBus(const PciFacts& facts) {
  std::map<std::string, std::string> owner;
  std::map<std::string, int> gpus_below;
  for (const PciDevice& gpu : facts.gpus) {
    for (const std::string& port : gpu.upstream_ports) {
      ++gpus_below[port];
      owner[port] = gpu.bus_id;
    }
  }
  for (const auto& [port, count] : gpus_below) {
    if (count > 1) owner.erase(port);
  }
  for (const PciDevice& gpu : facts.gpus) owner[gpu.bus_id] = gpu.bus_id;
  return owner;
}

std::string PcieLinkDegradation(const PciDevice& d) {
  std::string out;
  if (d.link_width_current && d.link_width_max && *d.link_width_current < *d.link_width_max) {
    out = "x" + std::to_string(*d.link_width_current) + " of x" + std::to_string(*d.link_width_max);
  }
  if (d.link_gen_current && d.link_gen_max && *d.link_gen_current < *d.link_gen_max) {
    if (!out.empty()) out += ", ";
    out +=
        "Gen" + std::to_string(*d.link_gen_current) + " of Gen" + std::to_string(*d.link_gen_max);
  }
  return out;
}

}  // namespace gpudoctor
