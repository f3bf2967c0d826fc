// The rules over kernel-log events, each defined in its own file. They need
// only the kernel log (kNeedsKernelLog); where GPU readings are present too
// they use them for correlation ("Xid 79 twenty seconds after 91 °C").
//
// Every Xid event is judged by exactly one xid.* rule (events::XidOwnerOf):
//   xid.fallen_off_bus   79 (and every fallen-off-the-bus event, Xid or not)
//   xid.recovery_action  154
//   xid.application      45 and the catalog's application category
//                        (11, 13, 25, 31, 43, 69, 137, 174)
//   xid.gsp              the catalog's GSP category (119, 120)
//   xid.memory           the catalog's memory category (48, 57, 58, 63, 64,
//                        92, 94, 95, 140, 168, 171, 172, 175)
//   xid.nvlink           the catalog's NVLink category (74, 108, 121, 136,
//                        144-150, 155, 166, 170, 173)
//   xid.other            every other code, known or not
// power.supply_suspected and nccl.errors read Xids too, as correlations; they
// add a conclusion about several events, not a second verdict on one.
#pragma once

#include "rules/engine/rule.h"

namespace gpudoctor {

extern const Rule kXidFallenOffBusRule;         // xid_fallen_off_bus.cpp
extern const Rule kPowerSupplySuspectedRule;    // power_supply_suspected.cpp
extern const Rule kXidGspRule;                  // xid_gsp.cpp
extern const Rule kXidMemoryRule;               // xid_memory.cpp
extern const Rule kXidApplicationRule;          // xid_application.cpp
extern const Rule kXidRecoveryActionRule;       // xid_recovery_action.cpp
extern const Rule kXidNvlinkRule;               // xid_nvlink.cpp
extern const Rule kXidOtherRule;                // xid_other.cpp
extern const Rule kDriverRmInitFailedRule;      // driver_rm_init_failed.cpp
extern const Rule kNcclErrorsRule;              // nccl_errors.cpp
extern const Rule kNcclNetworkRule;             // nccl_network.cpp
extern const Rule kNvswitchSxidRule;            // nvswitch_sxid.cpp
extern const Rule kGpudirectPeermemRule;        // gpudirect_peermem.cpp
extern const Rule kHostOomKillRule;             // host_oom_kill.cpp
extern const Rule kHostHungTaskRule;            // host_hung_task.cpp
extern const Rule kHostCpuStallRule;            // host_cpu_stall.cpp
extern const Rule kHostKernelCrashRule;         // host_kernel_crash.cpp
extern const Rule kHostStorageRule;             // host_storage.cpp
extern const Rule kHostNetworkFsRule;           // host_network_fs.cpp
extern const Rule kHostMemoryErrorsRule;        // host_memory_errors.cpp
extern const Rule kHostLimitReachedRule;        // host_limit_reached.cpp
extern const Rule kPcieAerRule;                 // pcie_aer.cpp
extern const Rule kPcieBandwidthLimitedRule;    // pcie_bandwidth_limited.cpp
extern const Rule kFabricManagerLogEventsRule;  // fabricmanager_log_events.cpp
extern const Rule kNetworkMlx5EventsRule;       // network_mlx5_events.cpp
extern const Rule kNvlinkRxDetectRule;          // nvlink_rx_detect.cpp
extern const Rule kKernelLogUndecodedRule;      // kernel_log_undecoded.cpp

}  // namespace gpudoctor
