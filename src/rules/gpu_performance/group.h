// The rules over windows of GPU readings about performance: thermal, power,
// utilisation, memory, clocks, data transfer. Each defined in its own file.
#pragma once

#include "rules/engine/rule.h"

namespace gpudoctor {

extern const Rule kThermalSlowdownRule;       // thermal_slowdown.cpp
extern const Rule kHighTemperatureRule;       // thermal_high_temperature.cpp
extern const Rule kFanRule;                   // thermal_fan.cpp
extern const Rule kPowerBrakeRule;            // power_brake.cpp
extern const Rule kPowerCapRule;              // power_cap.cpp
extern const Rule kPowerFluctuationRule;      // power_fluctuation.cpp
extern const Rule kHwSlowdownRule;            // clocks_hw_slowdown.cpp
extern const Rule kLowUtilizationRule;        // utilization_low.cpp
extern const Rule kSaturatedUtilizationRule;  // utilization_saturated.cpp
extern const Rule kMemoryPressureRule;        // memory_pressure.cpp
extern const Rule kPcieTransferBoundRule;     // pcie_transfer_bound.cpp
extern const Rule kSmIdleRule;                // utilization_sm_idle.cpp
extern const Rule kTensorIdleRule;            // precision_tensor_idle.cpp
extern const Rule kMemoryBandwidthBoundRule;  // memory_bandwidth_bound.cpp
extern const Rule kProcessesCompetingRule;    // processes_competing.cpp

}  // namespace gpudoctor
