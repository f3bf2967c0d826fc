// The Fabric block of one GPU in `nvidia-smi -q` text and `-q -x` XML
// (drivers from R525 on), onto GpuStatus::fabric. Pure.
//
// Text:  Fabric / State, Status, CliqueId, ClusterUUID, Health / Bandwidth,
//        Route Recovery in progress, Route Unhealthy, Access Timeout Recovery
// XML:   <fabric><state>, <status>, <cliqueId>, <clusterUuid>, <health>
//        <bandwidth>, <route_recovery_in_progress>, <route_unhealthy>,
//        <access_timeout_recovery>
// Both come here as a lower-case key with spaces ("route recovery in
// progress", "cliqueid"). N/A leaves a value null; a block whose State is
// N/A or "Not Supported" leaves the fabric null (healthy: no fabric).
#pragma once

#include <optional>
#include <string_view>

#include "core/gpu_status.h"

namespace gpudoctor {

// Applies one value of the block; false when the key is not one of the
// block's. `fabric` is created by the first value that is not N/A.
bool ApplyFabricValue(std::string_view key, std::string_view value,
                      std::optional<GpuFabric>& fabric);

// After the block: drops a fabric whose state was never given or is not
// supported.
void FinishFabric(std::optional<GpuFabric>& fabric);

}  // namespace gpudoctor
