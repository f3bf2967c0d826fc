// A GPU's NVLink fabric registration (GpuStatus::fabric) as sample cells,
// "fabric.<member>", and back: state, status_code, status, clique_id,
// cluster_uuid, health_mask and the four health conditions (0/1). Only
// present fields get a cell; "fabric.state" is there whenever the GPU has
// fabric info. Pure.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/gpu_status.h"
#include "store/chunk_codec.h"

namespace gpudoctor {

void FabricToCells(const GpuFabric& fabric, std::vector<NamedCell>& cells);

// The member number of "fabric.<member>" (the part after "fabric."), or
// nullopt for a name this version does not know.
std::optional<unsigned> FabricMemberOf(std::string_view member);

// Sets the member in gpu.fabric (created when absent); a cell of the wrong
// type is ignored.
void ApplyFabricCell(GpuStatus& gpu, unsigned member, const Cell& value);

}  // namespace gpudoctor
