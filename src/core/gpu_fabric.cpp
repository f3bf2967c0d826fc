// Names of the NVLink fabric values of core/gpu_status.h.
#include "core/gpu_status.h"

#include <iterator>

namespace gpudoctor {

const char* FabricStateName(FabricState state) {
  switch (state) {
    case FabricState::kNotSupported: return "not_supported";
    case FabricState::kNotStarted: return "not_started";
    case FabricState::kInProgress: return "in_progress";
    case FabricState::kCompleted: return "completed";
  }
  return "not_supported";
}

// NVML_P2P_STATUS_* in nvml.h's order.
const char* FabricHealthSummaryName(FabricHealthSummary summary) {
  switch (summary) {
    case FabricHealthSummary::kNotSupported: return "not_supported";
    case FabricHealthSummary::kHealthy: return "healthy";
    case FabricHealthSummary::kUnhealthy: return "unhealthy";
    case FabricHealthSummary::kLimitedCapacity: return "limited_capacity";
  }
  return "not_supported";
}

const char* P2PStatusName(int status) {
  static constexpr const char* kNames[] = {"ok",
                                           "chipset_not_supported",
                                           "gpu_not_supported",
                                           "topology_not_supported",
                                           "disabled_by_regkey",
                                           "not_supported",
                                           "unknown"};
  if (status < 0 || status >= static_cast<int>(std::size(kNames))) return "unknown";
  return kNames[status];
}

}  // namespace gpudoctor
