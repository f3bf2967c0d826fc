// Inputs for the stress.* rule tests: readings one second apart from
// TestTime(0) (support/rule_testing.h) with an active run that began at
// TestTime(0), each GPU's load (and burn) from 0.5 s on.
#pragma once

#include "core/clock_reasons.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {

inline DiagnosisInput StressInput(const std::vector<std::vector<GpuStatus>>& readings) {
  DiagnosisInput input = InputFromReadings(readings);
  ActiveRun run;
  run.started_at = TestTime(0);
  run.tests = {"hbm", "memory", "power"};
  for (const GpuStatus& g : readings.front()) {
    ActiveGpuResult r;
    r.index = g.index;
    r.pci_bus_id = g.pci_bus_id;
    r.name = g.name;
    r.load_started_s = 0.5;
    r.burn_started_s = 0.5;
    r.burn_ended_s = 1e6;
    run.gpus.push_back(r);
  }
  input.active = run;
  return input;
}

inline GpuStatus StressLostGpu(unsigned index) {
  GpuStatus g = HealthyGpu(index);
  g.state = GpuState::kLost;
  g.state_detail = "nvmlDeviceGetPowerUsage: GPU is lost (NVML_ERROR_GPU_IS_LOST)";
  return g;
}

inline GpuStatus WithReason(GpuStatus g, const char* reason) {
  g.clock_event_reasons_mask = ClockReasonBit(reason);
  return g;
}

}  // namespace gpudoctor::testing
