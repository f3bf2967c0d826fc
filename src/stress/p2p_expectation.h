// What a GPU pair's copies should reach, from its links as NVML read them
// before the run: the NVLink links between the two (or, on an NVSwitch node,
// each GPU's links to the fabric, the fewer of the two) x the per-link rate
// of their generation (knowledge/nvlink_rates.h); without NVLink, the slower
// GPU's PCIe link at its maximum generation and width, half of it when the
// copy is staged through host memory (it crosses a link twice).
#pragma once

#include <optional>
#include <vector>

#include "core/active_run.h"
#include "core/gpu_status.h"

namespace gpudoctor {

// `gpu`'s links, each remote end classed as a GPU of `node` or an NVSwitch.
std::vector<ActiveNvLink> ActiveNvLinksOf(const GpuStatus& gpu, const SystemStatus& node);

// nullopt when neither the links nor the PCIe links say what to expect
// (an NVLink of unknown version, a PCIe link NVML did not report).
std::optional<PeerExpectation> ExpectPeerCopy(const ActiveGpuResult& src, const ActiveGpuResult& dst,
                                              bool peer_access);

}  // namespace gpudoctor
