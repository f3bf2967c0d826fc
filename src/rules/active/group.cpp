#include "rules/active/group.h"

#include "rules/engine/registry.h"

namespace gpudoctor {

// Lost GPUs and their common cause first, then data errors, then slowdowns.
std::vector<const Rule*> ActiveRules() {
  return {
      &kStressPowerSupplyRule, &kStressGpuLostRule,         &kStressMemoryMismatchRule,
      &kStressCudaErrorRule,   &kStressPowerBrakeRule,      &kStressThermalSlowdownRule,
      &kStressClocksHeldRule,
      &kStressStragglerRule,   &kStressHbmBelowPeakRule,    &kStressPcieBelowLinkRule,
      &kStressPcieHalfDuplexRule,
      &kStressPeerPairBelowLinksRule, &kStressWeakPeerPairRule,
  };
}

}  // namespace gpudoctor
