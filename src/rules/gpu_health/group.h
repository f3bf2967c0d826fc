// The rules over GPU readings about health and configuration: GPU lost or
// hung, ECC and row remapping, PCIe replays, NVLink, persistence mode, power
// limit, application clocks, compute and MIG mode. Each defined in its own file.
#pragma once

#include "rules/engine/rule.h"

namespace gpudoctor {

extern const Rule kGpuLostRule;                   // gpu_lost.cpp
extern const Rule kGpuImplausibleReadingRule;     // gpu_implausible_reading.cpp
extern const Rule kGpuRecoveryActionRule;         // gpu_recovery_action.cpp
extern const Rule kGpuNeedsInspectionRule;        // gpu_needs_inspection.cpp
extern const Rule kGpuDcgmHealthRule;             // gpu_dcgm_health.cpp
extern const Rule kEccUncorrectableRule;          // ecc_uncorrectable.cpp
extern const Rule kEccRowRemapRule;               // ecc_row_remap.cpp
extern const Rule kPcieReplayRule;                // pcie_replay.cpp
extern const Rule kNvlinkErrorsRule;              // nvlink_errors.cpp
extern const Rule kNvlinkFabricRegistrationRule;  // fabric_registration.cpp
extern const Rule kNvlinkFabricHealthRule;        // fabric_health.cpp
extern const Rule kNvlinkFabricPeersRule;         // fabric_peers.cpp
extern const Rule kConfigPersistenceModeRule;     // config_persistence_mode.cpp
extern const Rule kConfigPowerLimitRule;          // config_power_limit.cpp
extern const Rule kConfigApplicationClocksRule;   // config_application_clocks.cpp
extern const Rule kConfigComputeModeRule;         // config_compute_mode.cpp
extern const Rule kConfigPendingModeChangeRule;   // config_pending_mode_change.cpp
extern const Rule kConfigPstateRule;              // config_pstate.cpp
extern const Rule kDriverNvmlSlowRule;            // driver_nvml_slow.cpp

}  // namespace gpudoctor
