#include "rules/active/group.h"

#include "rules/engine/registry.h"

namespace gpudoctor {

// Lost GPUs and their common cause first, then data errors, then slowdowns.
std::vector<const Rule*> ActiveRules() {
  return {
      &kStressPowerSupplyRule, &kStressGpuLostRule,         &kStressMemoryMismatchRule,
      &kStressCudaErrorRule,   &kStressPowerBrakeRule,      &kStressThermalSlowdownRule,
      &kStressClocksHeldRule,
      &kStressHbmBelowPeakRule,    &kStressPcieBelowLinkRule,
      &kStressPcieHalfDuplexRule,
      &kStressPeerPairBelowLinksRule, &kStressWeakPeerPairRule, &kStressPeerPairAboveLinksRule,
      // Last among the slowdowns: a GPU slower than its peers, where a rule
      // above may have named why (one cause, one finding: FoldCauses).
      &kStressStragglerRule,
  };
}

}  // namespace gpudoctor
