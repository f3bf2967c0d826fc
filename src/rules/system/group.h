// The rules over host, PCI bus, versions, services and network: CPU and
// memory of the host, dropped GPUs and the PCIe link, driver / CUDA /
// framework versions, Fabric Manager, power supply headroom, NICs, pings and
// RDMA. Each defined in its own file; shared helpers in system_util.h.
#pragma once

#include "rules/engine/rule.h"

namespace gpudoctor {

extern const Rule kGpuDroppedRule;                    // gpu_dropped.cpp
extern const Rule kDriverNotLoadedRule;               // driver_not_loaded.cpp
extern const Rule kDriverVersionMismatchRule;         // driver_version_mismatch.cpp
extern const Rule kFabricManagerNotRunningRule;       // fabricmanager_not_running.cpp
extern const Rule kFabricManagerVersionMismatchRule;  // fabricmanager_version_mismatch.cpp
extern const Rule kFabricManagerErrorsRule;           // fabricmanager_errors.cpp
extern const Rule kPcieLinkDegradedRule;              // pcie_link_degraded.cpp
extern const Rule kPowerPsuHeadroomRule;              // power_psu_headroom.cpp
extern const Rule kDriverCudaMismatchRule;            // driver_cuda_mismatch.cpp
extern const Rule kFrameworkCudaMismatchRule;         // framework_cuda_mismatch.cpp
extern const Rule kCpuBottleneckRule;                 // cpu_bottleneck.cpp
extern const Rule kCpuCoresPerGpuRule;                // cpu_cores_per_gpu.cpp
extern const Rule kCpuThrottledRule;                  // cpu_throttled.cpp
extern const Rule kHostMemoryPressureRule;            // host_memory_pressure.cpp
extern const Rule kHostRamToGpuRule;                  // host_ram_to_gpu.cpp
extern const Rule kHostLimitsRule;                    // host_limits.cpp
extern const Rule kHostStuckProcessesRule;            // host_stuck_processes.cpp
extern const Rule kHostZombiesRule;                   // host_zombies.cpp
extern const Rule kHostMemoryEdacRule;                // host_memory_edac.cpp
extern const Rule kHostMountUnresponsiveRule;         // host_mount_unresponsive.cpp
extern const Rule kStackPeermemRule;                  // stack_peermem.cpp
extern const Rule kStackIommuRule;                    // stack_iommu.cpp
extern const Rule kStackAcsRule;                      // stack_acs.cpp
extern const Rule kStackContainerToolkitRule;         // stack_container_toolkit.cpp
extern const Rule kHostDiskSpaceRule;                 // host_disk_space.cpp
extern const Rule kNetworkLinkSpeedRule;              // network_link_speed.cpp
extern const Rule kNetworkPingRule;                   // network_ping.cpp
extern const Rule kNetworkRdmaRule;                   // network_rdma.cpp
extern const Rule kNetworkRdmaCountRule;              // network_rdma_count.cpp
extern const Rule kNetworkRdmaRateRule;               // network_rdma_rate.cpp
extern const Rule kNetworkRdmaErrorsRule;             // network_rdma_errors.cpp
extern const Rule kNetworkRdmaFlapRule;               // network_rdma_flap.cpp
extern const Rule kNetworkRdmaSaturatedRule;          // network_rdma_saturated.cpp

}  // namespace gpudoctor
