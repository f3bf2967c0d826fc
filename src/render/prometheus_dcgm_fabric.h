// The NVLink fabric of each GPU in DCGM's field names, as dcgm-exporter
// serves them when its counters file lists them (`--metrics-names
// dcgm|both`): DCGM_FI_DEV_FABRIC_MANAGER_STATUS (field 170),
// _FABRIC_MANAGER_ERROR_CODE (171), _FABRIC_CLIQUE_ID (173),
// _FABRIC_HEALTH_MASK (174) and _FABRIC_HEALTH_SUMMARY (175), valued as
// DCGM encodes them (dcgm_fields.h, dcgm_structs.h). The cluster UUID (172)
// is a string field, which dcgm-exporter serves only as a label: left out.
// deploy/prometheus/DCGM_NAMES.md has the mapping.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/gpu_status.h"
#include "render/exposition.h"

namespace gpudoctor {

// dcgmFabricManagerStatus_t for a GPU's fabric: 0 not supported, 1 not
// started, 2 in progress, 3 success (registered with status 0), 4 failure
// (registered with an error status). Pure.
std::optional<int> DcgmFabricManagerStatus(const std::optional<GpuFabric>& fabric);

// Writes the fabric series of `gpus`, each sample with labels(gpu); a GPU
// without a fabric reading writes none.
void WriteDcgmFabric(const std::vector<GpuStatus>& gpus,
                     const std::function<std::string(const GpuStatus&)>& labels, Exposition& e);

}  // namespace gpudoctor
