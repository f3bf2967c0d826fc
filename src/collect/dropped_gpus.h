// Dropped GPUs from two independent views: the PCI bus (sysfs) and NVML.
// Pure: no I/O. A GPU is reported as dropped when
//  - it is on the PCI bus but NVML does not list it (even with no Xid), or
//  - it no longer answers on the bus (revision 0xff / config all ones), or
//  - fewer GPUs are seen than the configured expected count (one entry
//    without a bus id).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collect/pci_devices.h"
#include "facts/pci.h"

namespace gpudoctor {

// `nvml_bus_ids` in any form NormalizePciBusId accepts. A GPU that both
// does not answer and is missing from NVML is reported once, as kNoAnswer.
// The expected count is compared with the larger of: the GPUs NVML lists,
// the GPUs that answer on the bus. So a GPU already reported as missing from
// NVML is not reported twice, and one gone from both views is still caught.
// Call it with the bus ids of an NVML that initialised: when NVML itself
// failed, every GPU would look missing from it (report NVML's failure
// instead).
std::vector<DroppedGpu> FindDroppedGpus(const std::vector<PciDevice>& sysfs_gpus,
                                        const std::vector<std::string>& nvml_bus_ids,
                                        std::optional<unsigned> expected_count);

}  // namespace gpudoctor
