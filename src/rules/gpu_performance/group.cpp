#include "rules/gpu_performance/group.h"

#include "rules/engine/registry.h"

namespace gpudoctor {

// Causes before symptoms: heat and power first, then what they lead to
// (clocks, utilisation), then memory and data transfer, then what GPM shows
// inside the SMs.
std::vector<const Rule*> GpuPerformanceRules() {
  return {
      &kThermalSlowdownRule, &kHighTemperatureRule,   &kFanRule,
      &kPowerBrakeRule,      &kPowerCapRule,          &kPowerFluctuationRule,
      &kHwSlowdownRule,      &kLowUtilizationRule,    &kSaturatedUtilizationRule,
      &kMemoryPressureRule,  &kPcieTransferBoundRule, &kSmIdleRule,
      &kTensorIdleRule,      &kMemoryBandwidthBoundRule, &kProcessesCompetingRule,
  };
}

}  // namespace gpudoctor
