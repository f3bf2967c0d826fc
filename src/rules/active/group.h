// The rules over an active run (`gpudoctor stress`, core/active_run.h): what
// provoking the GPUs showed. They need kNeedsActive, so only a stress run
// evaluates them; its 100 ms NVML samples are the input's GPU series.
#pragma once

#include "rules/engine/rule.h"

namespace gpudoctor {

extern const Rule kStressPowerSupplyRule;    // stress_power_supply.cpp
extern const Rule kStressGpuLostRule;        // stress_gpu_lost.cpp
extern const Rule kStressMemoryMismatchRule; // stress_memory_mismatch.cpp
extern const Rule kStressCudaErrorRule;      // stress_cuda_error.cpp
extern const Rule kStressPowerBrakeRule;     // stress_power_brake.cpp
extern const Rule kStressThermalSlowdownRule;  // stress_thermal_slowdown.cpp
extern const Rule kStressStragglerRule;      // stress_straggler.cpp
extern const Rule kStressHbmBelowPeakRule;   // stress_hbm_below_peak.cpp
extern const Rule kStressPcieBelowLinkRule;  // stress_pcie_below_link.cpp
extern const Rule kStressPcieHalfDuplexRule; // stress_pcie_half_duplex.cpp
extern const Rule kStressClocksHeldRule;     // stress_clocks_held.cpp
extern const Rule kStressWeakPeerPairRule;    // stress_weak_peer_pair.cpp
extern const Rule kStressPeerPairBelowLinksRule;   // stress_peer_pair_below_links.cpp
extern const Rule kStressPeerPairAboveLinksRule;   // stress_peer_pair_above_links.cpp

}  // namespace gpudoctor
