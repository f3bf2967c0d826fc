#include "knowledge/recovery_policy.h"

#include <algorithm>

namespace gpudoctor {
namespace recovery_policy_detail {

using A = RecoveryAction;

// {rule, at warning, at critical}
const std::vector<RuleRecoveryRow> kRecoveryRows = {
    {"clocks.hw_slowdown", A::kNone, A::kHardwareInspection},
    {"driver.rm_init_failed", A::kRebootNode, A::kRebootNode},
    {"driver.version_mismatch", A::kRebootNode, A::kRebootNode},
    {"ecc.row_remap", A::kResetGpu, A::kHardwareInspection},
    {"ecc.uncorrectable", A::kResetGpu, A::kResetGpu},
    {"fabricmanager.errors", A::kNone, A::kRebootNode},
    {"fabricmanager.log_events", A::kNone, A::kRebootNode},
    {"gpu.dcgm_health", A::kNone, A::kResetGpu},
    {"gpu.dropped", A::kRebootNode, A::kRebootNode},
    {"gpu.implausible_reading", A::kNone, A::kResetGpu},
    {"gpu.lost", A::kRebootNode, A::kRebootNode},
    {"host.cpu_stall", A::kNone, A::kRebootNode},
    {"host.kernel_crash", A::kRebootNode, A::kRebootNode},
    {"host.memory_edac", A::kNone, A::kHardwareInspection},
    {"host.memory_errors", A::kNone, A::kHardwareInspection},
    {"host.oom_kill", A::kRestartApplication, A::kRestartApplication},
    {"nccl.errors", A::kRestartApplication, A::kRestartApplication},
    {"nvlink.errors", A::kNone, A::kResetGpu},
    {"nvlink.fabric_health", A::kNone, A::kResetGpu},
    {"nvlink.fabric_registration", A::kNone, A::kResetGpu},
    {"nvlink.rx_detect", A::kNone, A::kHardwareInspection},
    {"nvswitch.sxid", A::kNone, A::kRebootNode},
    {"pcie.aer", A::kNone, A::kHardwareInspection},
    {"pcie.link_degraded", A::kNone, A::kHardwareInspection},
    {"pcie.replay", A::kNone, A::kHardwareInspection},
    {"power.brake", A::kNone, A::kHardwareInspection},
    {"power.supply_suspected", A::kHardwareInspection, A::kHardwareInspection},
    {"stress.cuda_error", A::kResetGpu, A::kResetGpu},
    {"stress.gpu_lost", A::kRebootNode, A::kRebootNode},
    {"stress.hbm_below_peak", A::kNone, A::kHardwareInspection},
    {"stress.memory_mismatch", A::kHardwareInspection, A::kHardwareInspection},
    {"stress.pcie_below_link", A::kNone, A::kHardwareInspection},
    {"stress.peer_pair_below_links", A::kNone, A::kHardwareInspection},
    {"stress.power_brake", A::kNone, A::kHardwareInspection},
    {"stress.power_supply", A::kHardwareInspection, A::kHardwareInspection},
    {"stress.straggler", A::kNone, A::kHardwareInspection},
    {"stress.thermal_slowdown", A::kNone, A::kHardwareInspection},
    {"thermal.fan", A::kNone, A::kHardwareInspection},
    {"thermal.high_temperature", A::kNone, A::kHardwareInspection},
    {"thermal.slowdown", A::kNone, A::kHardwareInspection},
};

}  // namespace recovery_policy_detail

using recovery_policy_detail::A;
using recovery_policy_detail::kRecoveryRows;

const std::vector<RuleRecoveryRow>& RuleRecoveryTable() { return kRecoveryRows; }

RecoveryAction RuleRecovery(std::string_view rule, Severity severity) {
  if (severity != Severity::kWarning && severity != Severity::kCritical) return A::kNone;
  auto row = std::find_if(kRecoveryRows.begin(), kRecoveryRows.end(),
                          [&](const RuleRecoveryRow& r) { return r.rule == rule; });
  if (row == kRecoveryRows.end()) return A::kNone;
  return severity == Severity::kCritical ? row->at_critical : row->at_warning;
}

RecoveryAction XidResolutionRecovery(XidResolution bucket) {
  switch (bucket) {
    case XidResolution::kRestartApp:
    case XidResolution::kCheckUvm:
      return A::kRestartApplication;
    case XidResolution::kResetGpu:
    case XidResolution::kWorkflowXid48:
    case XidResolution::kWorkflowNvlinkErr:
    case XidResolution::kWorkflowNvlink5Err:
      return A::kResetGpu;
    case XidResolution::kRestartBm:
    case XidResolution::kRestartVm:
    case XidResolution::kContactSupport:
      return A::kRebootNode;
    case XidResolution::kCheckMechanicals:
      return A::kHardwareInspection;
    case XidResolution::kIgnore:
    case XidResolution::kUpdateSwFw:
    case XidResolution::kXid154:
    case XidResolution::kWorkflowXid45:
    case XidResolution::kNoneListed:
      return A::kNone;
  }
  return A::kNone;
}

RecoveryAction XidRecovery(int code) { return XidResolutionRecovery(LookupXid(code).immediate); }

}  // namespace gpudoctor
