// JSON for the PCIe part of `gpudoctor facts --json`: NVIDIA GPUs and
// NVSwitches from sysfs, and dropped GPUs. Unknown values are null.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "facts/pci.h"

namespace gpudoctor {

// {bus_id, kind ("gpu"/"nvswitch"), vendor_id ("0x10de"), device_id
//  ("0x20b2"), class ("0x030200"), revision ("0xa1" | null), answers,
//  no_answer_detail?, link: {speed_current_gt_s, speed_max_gt_s, gen_current,
//  gen_max, width_current, width_max, degraded, degradation}, aer:
//  {correctable, nonfatal, fatal: {total, counters: {name: n}} | null},
//  numa_node, driver, sources}
nlohmann::ordered_json ToJson(const PciDevice& device);

// {gpus: [device...], nvswitches: [device...], sources}
nlohmann::ordered_json ToJson(const PciFacts& facts);

// [{bus_id (null for a count shortfall), reason ("not_in_nvml" /
//   "no_answer" / "below_expected_count"), detail}]
nlohmann::ordered_json ToJson(const std::vector<DroppedGpu>& dropped);

}  // namespace gpudoctor
