// What it takes to bring a node back from a finding: one closed set of
// recovery actions, ordered from the least to the most disruptive, with its
// names in output and the mapping to what other systems call them:
//   - NVML's GPU recovery action (field 230, nvidia-smi's "GPU Recovery
//     Action", Xid 154's text): what the driver itself asks for;
//   - leptonai/gpud's repair actions and NVIDIA NVSentinel's
//     RecommendedAction, so a remediation system can act on ours.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/text.h"

namespace gpudoctor {

// The order is the strictness: a later action includes what an earlier one
// would do (a reboot resets every GPU; an inspection starts with a drain).
enum class RecoveryAction {
  kNone = 0,                // nothing to do to the GPU or node (the finding's steps still apply)
  kRestartApplication = 1,  // the application failed; the GPU is fine
  kResetGpu = 2,            // reset the GPU (stop its processes first)
  kDrainAndReset = 3,       // drain its work (peer-to-peer traffic first), then reset it
  kRebootNode = 4,          // a GPU reset is not enough
  kHardwareInspection = 5,  // take the node out of service for inspection or repair (RMA)
  kContactProvider = 6,     // a cloud instance: the provider must replace or repair the host
};

inline constexpr RecoveryAction kAllRecoveryActions[] = {
    RecoveryAction::kNone,           RecoveryAction::kRestartApplication,
    RecoveryAction::kResetGpu,       RecoveryAction::kDrainAndReset,
    RecoveryAction::kRebootNode,     RecoveryAction::kHardwareInspection,
    RecoveryAction::kContactProvider};

// "none", "restart_application", "reset_gpu", "drain_and_reset",
// "reboot_node", "hardware_inspection", "contact_provider".
std::string_view RecoveryActionName(RecoveryAction action);
std::optional<RecoveryAction> ParseRecoveryAction(std::string_view name);
// One short phrase for people: "reboot the node" / "重启节点".
Text RecoveryActionPhrase(RecoveryAction action);
// The value of the gpudoctor_recommended_action metric (the enum's number).
int RecoveryActionCode(RecoveryAction action);
RecoveryAction Stricter(RecoveryAction a, RecoveryAction b);
// Keeping the strictest seen: `b` when nothing was seen yet.
RecoveryAction Stricter(const std::optional<RecoveryAction>& seen, RecoveryAction b);
// The action of a RecoveryActionCode (as stored); nullopt for another number.
std::optional<RecoveryAction> RecoveryActionOfCode(std::int64_t code);

// gpud's repair action: IGNORE_NO_ACTION_REQUIRED, CHECK_USER_APP_AND_GPU,
// REBOOT_SYSTEM or HARDWARE_INSPECTION.
std::string_view GpudRepairAction(RecoveryAction action);
// NVSentinel's RecommendedAction name and number; `virtual_machine`: the
// node is a cloud instance (reboot -> RESTART_VM, a host fault -> REPLACE_VM).
struct NvsentinelAction {
  std::string_view name;
  int number = 0;
};
NvsentinelAction NvsentinelActionFor(RecoveryAction action, bool virtual_machine);

// NVML's nvmlDeviceGpuRecoveryAction_t (field 230): 0 None, 1 GPU Reset,
// 2 Node Reboot, 3 Drain P2P, 4 Drain and Reset, 5 Recover IMEX Domain.
// nullopt for a value this table does not know.
std::optional<RecoveryAction> FromNvmlRecoveryAction(std::int64_t value);
// "None", "GPU Reset", ..., or "unknown (N)".
std::string NvmlRecoveryActionName(std::int64_t value);
// nvidia-smi's "GPU Recovery Action" text ("None", "GPU Reset Required",
// "Node Reboot Required", "Drain P2P", "Drain and Reset", ...) as NVML's
// value; nullopt when it is none of them.
std::optional<std::int64_t> ParseNvmlRecoveryActionText(std::string_view text);

}  // namespace gpudoctor
