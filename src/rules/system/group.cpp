#include "rules/system/group.h"

#include "rules/engine/registry.h"

namespace gpudoctor {

// Most severe kinds first: GPUs gone or unusable, the driver and the NVSwitch
// fabric, the bus and the power supply, then versions, host resources and
// the network.
std::vector<const Rule*> SystemRules() {
  return {
      &kGpuDroppedRule,
      &kDriverNotLoadedRule,
      &kDriverVersionMismatchRule,
      &kFabricManagerNotRunningRule,
      &kFabricManagerVersionMismatchRule,
      &kFabricManagerErrorsRule,
      &kPcieLinkDegradedRule,
      &kPowerPsuHeadroomRule,
      &kDriverCudaMismatchRule,
      &kFrameworkCudaMismatchRule,
      &kStackContainerToolkitRule,
      &kStackPeermemRule,
      &kStackAcsRule,
      &kStackIommuRule,
      &kCpuBottleneckRule,
      &kCpuCoresPerGpuRule,
      &kCpuThrottledRule,
      &kHostMemoryPressureRule,
      &kHostRamToGpuRule,
      &kHostLimitsRule,
      &kHostStuckProcessesRule,
      &kHostZombiesRule,
      &kHostMemoryEdacRule,
      &kHostMountUnresponsiveRule,
      &kHostDiskSpaceRule,
      &kNetworkLinkSpeedRule,
      &kNetworkPingRule,
      &kNetworkRdmaRule,
      &kNetworkRdmaCountRule,
      &kNetworkRdmaRateRule,
      &kNetworkRdmaErrorsRule,
      &kNetworkRdmaFlapRule,
      &kNetworkRdmaSaturatedRule,
  };
}

}  // namespace gpudoctor
