#include "rules/kernel_events/group.h"

#include "rules/engine/registry.h"

namespace gpudoctor {

// Most consequential first: lost GPUs and their likely cause, then what the
// driver says must be done, then the remaining Xids, then the other logs.
std::vector<const Rule*> KernelEventRules() {
  return {
      &kXidFallenOffBusRule,
      &kPowerSupplySuspectedRule,
      &kXidRecoveryActionRule,
      &kXidGspRule,
      &kXidMemoryRule,
      &kXidNvlinkRule,
      &kXidApplicationRule,
      &kXidOtherRule,
      &kDriverRmInitFailedRule,
      &kNvswitchSxidRule,
      &kNcclErrorsRule,
      &kNcclNetworkRule,
      &kPcieAerRule,
      &kPcieBandwidthLimitedRule,
      &kFabricManagerLogEventsRule,
      &kGpudirectPeermemRule,
      &kHostKernelCrashRule,
      &kHostMemoryErrorsRule,
      &kHostHungTaskRule,
      &kHostStorageRule,
      &kHostNetworkFsRule,
      &kHostCpuStallRule,
      &kHostOomKillRule,
      &kHostLimitReachedRule,
      &kNetworkMlx5EventsRule,
      &kNvlinkRxDetectRule,
      &kKernelLogUndecodedRule,
  };
}

}  // namespace gpudoctor
