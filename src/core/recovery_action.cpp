#include "core/recovery_action.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace gpudoctor {
namespace recovery_action_detail {

struct ActionRow {
  RecoveryAction action;
  std::string_view name;
  const char* phrase_en;
  const char* phrase_zh;
  std::string_view gpud;
};

constexpr ActionRow kActionRows[] = {
    {RecoveryAction::kNone, "none", "no recovery action", "无需恢复操作",
     "IGNORE_NO_ACTION_REQUIRED"},
    {RecoveryAction::kRestartApplication, "restart_application", "restart the application",
     "重启应用程序", "CHECK_USER_APP_AND_GPU"},
    {RecoveryAction::kResetGpu, "reset_gpu", "reset the GPU", "重置 GPU", "REBOOT_SYSTEM"},
    {RecoveryAction::kDrainAndReset, "drain_and_reset", "drain the GPU's work, then reset it",
     "排空该 GPU 上的任务后重置", "REBOOT_SYSTEM"},
    {RecoveryAction::kRebootNode, "reboot_node", "reboot the node", "重启节点", "REBOOT_SYSTEM"},
    {RecoveryAction::kHardwareInspection, "hardware_inspection",
     "take the node out of service for hardware inspection", "下线节点进行硬件检修",
     "HARDWARE_INSPECTION"},
    {RecoveryAction::kContactProvider, "contact_provider",
     "contact the cloud provider to repair or replace the host", "联系云服务商修复或更换宿主机",
     "HARDWARE_INSPECTION"},
};

const ActionRow& ActionRowOf(RecoveryAction action) {
  for (const ActionRow& r : kActionRows) {
    if (r.action == action) return r;
  }
  return kActionRows[0];
}

std::string LowerCase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace recovery_action_detail

using recovery_action_detail::ActionRow;
using recovery_action_detail::ActionRowOf;
using recovery_action_detail::kActionRows;

std::string_view RecoveryActionName(RecoveryAction action) { return ActionRowOf(action).name; }

std::optional<RecoveryAction> ParseRecoveryAction(std::string_view name) {
  for (const ActionRow& r : kActionRows) {
    if (r.name == name) return r.action;
  }
  return std::nullopt;
}

Text RecoveryActionPhrase(RecoveryAction action) {
  const ActionRow& r = ActionRowOf(action);
  return Text{r.phrase_en, r.phrase_zh};
}

int RecoveryActionCode(RecoveryAction action) { return static_cast<int>(action); }

RecoveryAction Stricter(RecoveryAction a, RecoveryAction b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

RecoveryAction Stricter(const std::optional<RecoveryAction>& seen, RecoveryAction b) {
  return seen ? Stricter(*seen, b) : b;
}

std::optional<RecoveryAction> RecoveryActionOfCode(std::int64_t code) {
  for (RecoveryAction a : kAllRecoveryActions) {
    if (RecoveryActionCode(a) == code) return a;
  }
  return std::nullopt;
}

std::string_view GpudRepairAction(RecoveryAction action) { return ActionRowOf(action).gpud; }

NvsentinelAction NvsentinelActionFor(RecoveryAction action, bool virtual_machine) {
  switch (action) {
    case RecoveryAction::kNone:
    case RecoveryAction::kRestartApplication:
      return {"NONE", 0};
    case RecoveryAction::kResetGpu:
    case RecoveryAction::kDrainAndReset:
      return {"COMPONENT_RESET", 2};
    case RecoveryAction::kRebootNode:
      return virtual_machine ? NvsentinelAction{"RESTART_VM", 15}
                             : NvsentinelAction{"RESTART_BM", 24};
    case RecoveryAction::kHardwareInspection:
    case RecoveryAction::kContactProvider:
      return virtual_machine ? NvsentinelAction{"REPLACE_VM", 25}
                             : NvsentinelAction{"CONTACT_SUPPORT", 5};
  }
  return {"NONE", 0};
}

std::optional<RecoveryAction> FromNvmlRecoveryAction(std::int64_t value) {
  switch (value) {
    case 0:
      return RecoveryAction::kNone;
    case 1:
      return RecoveryAction::kResetGpu;
    case 2:
      return RecoveryAction::kRebootNode;
    // Drain P2P: quiesce peer-to-peer traffic, then the driver says more;
    // Drain and Reset: the GPU runs at reduced capacity until reset.
    case 3:
    case 4:
      return RecoveryAction::kDrainAndReset;
    // Recover IMEX Domain (the memory shared across nodes): the IMEX
    // service on the domain's nodes is what restarts; the GPU needs nothing.
    case 5:
      return RecoveryAction::kRestartApplication;
    default:
      return std::nullopt;
  }
}

std::string NvmlRecoveryActionName(std::int64_t value) {
  switch (value) {
    case 0:
      return "None";
    case 1:
      return "GPU Reset";
    case 2:
      return "Node Reboot";
    case 3:
      return "Drain P2P";
    case 4:
      return "Drain and Reset";
    case 5:
      return "Recover IMEX Domain";
    default:
      return fmt::format("unknown ({})", value);
  }
}

std::optional<std::int64_t> ParseNvmlRecoveryActionText(std::string_view text) {
  const std::string t = recovery_action_detail::LowerCase(text);
  auto has = [&](std::string_view word) { return t.find(word) != std::string::npos; };
  if (t == "none" || t == "0x0") return 0;
  if (has("imex")) return 5;
  if (has("drain") && has("reset")) return 4;
  if (has("drain")) return 3;
  if (has("reboot")) return 2;
  if (has("reset")) return 1;
  return std::nullopt;
}

}  // namespace gpudoctor
