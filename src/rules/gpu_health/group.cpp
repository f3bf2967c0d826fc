#include "rules/gpu_health/group.h"

#include "rules/engine/registry.h"

namespace gpudoctor {

// Most severe kinds first: a lost GPU, memory errors, the bus and links, then
// configuration.
std::vector<const Rule*> GpuHealthRules() {
  return {
      &kGpuLostRule,
      &kGpuRecoveryActionRule,
      &kGpuNeedsInspectionRule,
      &kGpuImplausibleReadingRule,
      &kGpuDcgmHealthRule,
      &kEccUncorrectableRule,
      &kEccRowRemapRule,
      &kPcieReplayRule,
      &kNvlinkErrorsRule,
      &kNvlinkFabricRegistrationRule,
      &kNvlinkFabricHealthRule,
      &kNvlinkFabricPeersRule,
      &kDriverNvmlSlowRule,
      &kConfigPersistenceModeRule,
      &kConfigPowerLimitRule,
      &kConfigApplicationClocksRule,
      &kConfigComputeModeRule,
      &kConfigPendingModeChangeRule,
      &kConfigPstateRule,
  };
}

}  // namespace gpudoctor
