// The fabric over a recorded window, for `report`'s timeline and charts:
// each RDMA port's state changes (marked down, drop or flap, the way
// network.rdma_flap counts them) and its error counters' rate per step, and
// each GPU's NVLink fabric registration changes. Pure: from the window's
// readings (DiagnosisInput::gpus, network->rdma and rdma_history).
#pragma once

#include "facts/diagnosis_input.h"
#include "facts/timeline.h"

namespace gpudoctor {

// Fills timeline.changes (sorted by time) and timeline.rdma_ports.
void AddFabricHistory(const DiagnosisInput& input, Timeline& timeline);

// "completed, Success; degraded bandwidth" -- a GPU's fabric registration as
// the timeline shows it.
std::string FabricSummary(const GpuFabric& fabric);

}  // namespace gpudoctor
