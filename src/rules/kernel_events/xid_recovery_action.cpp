// xid.recovery_action: Xid 154, the driver stating what it takes to bring a
// GPU back ("GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset
// Required)"). The latest action per GPU decides: reset, reboot or drain and
// reset -> critical with that remedy; back to None -> info (recovered).
//5.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace xid_recovery_action_rule {

using events::EventList;

struct Remedy {
  Severity severity;
  Text meaning;
  std::vector<Action> actions;
  RecoveryAction recommended = RecoveryAction::kNone;
};

Remedy RemedyFor(const std::string& action, const std::string& bus) {
  if (action == "None") {
    return {Severity::kInfo,
            {"the action went back to None: the GPU recovered (usually after a reset)",
             "恢复操作已回到 None：GPU 已恢复（通常是在重置之后）"},
            {}};
  }
  if (action == "GPU Reset Required") {
    return {Severity::kCritical,
            {"the GPU must be reset before it can run work again", "必须重置 GPU 后才能再运行任务"},
            {events::DrainAction(bus), events::ResetGpuAction(bus)},
            RecoveryAction::kResetGpu};
  }
  if (action == "Node Reboot Required" || action == "OS Reboot") {
    return {
        Severity::kCritical,
        {"the node must be rebooted; a GPU reset is not enough", "必须重启节点；仅重置 GPU 不够"},
        {events::DrainAction(bus), events::RebootAction()},
        RecoveryAction::kRebootNode};
  }
  if (action == "Drain and Reset") {
    return {Severity::kCritical,
            {"let the running jobs finish or move them, then reset the GPU; no new jobs start "
             "until then",
             "先让正在运行的任务结束或迁走，再重置 GPU；在此之前不会启动新任务"},
            {events::DrainAction(bus), events::ResetGpuAction(bus)},
            RecoveryAction::kDrainAndReset};
  }
  if (action == "Recover IMEX Domain") {
    return {Severity::kWarning,
            {"the IMEX domain (memory shared across nodes) must be recovered",
             "必须恢复 IMEX 域（跨节点共享内存）"},
            {Action{Text{"Restart the IMEX service on the nodes of the domain.",
                         "在该域的各节点上重启 IMEX 服务。"},
                    "sudo systemctl restart nvidia-imex"}},
            RecoveryAction::kRestartApplication};
  }
  if (action == "Drain P2P") {
    return {Severity::kWarning,
            {"peer-to-peer (NVLink) work with this GPU must be drained",
             "必须排空与该 GPU 之间的点对点（NVLink）任务"},
            {events::DrainAction(bus)},
            RecoveryAction::kDrainAndReset};
  }
  return {Severity::kWarning,
          {fmt::format("an action this tool does not know: `{}`", action),
           fmt::format("本工具无法识别的恢复操作：`{}`", action)},
          {events::CollectBugReportAction()}};
}

// Other Xids of the same GPU before the last recovery action: what led to it.
std::vector<int> CausesBefore(const DiagnosisInput& input, const std::string& bus,
                              const KernelEvent* last) {
  std::set<int> codes;
  for (const KernelEvent& e : events::AllEvents(input)) {
    if (&e == last) break;
    if (e.kind == KernelEventKind::kXid && e.code && *e.code != 154 && e.pci_bus_id == bus) {
      codes.insert(*e.code);
    }
  }
  return {codes.begin(), codes.end()};
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList changes =
      events::WithDerived(input, events::XidEventsOwnedBy(input, events::XidOwner::kRecoveryAction),
                          KernelEventKind::kRecoveryAction);
  for (const auto& [bus, group] : events::ByGpu(changes)) {
    const KernelEvent* last = group.back();
    std::string action = last->detail.empty() ? "unknown" : last->detail;
    Remedy remedy = RemedyFor(action, bus);
    // The latest action decides (an action back to None is recovery).
    Finding& f = out.Add(std::max(remedy.severity, events::XidPolicyFloor({last})));
    if (!bus.empty()) f.gpus.push_back(bus);
    if (!bus.empty()) f.causes = {"recovery " + bus};  // with gpu.recovery_action's
    f.xids = {154};
    f.recommended = remedy.recommended;
    Text label = events::GpuText(input, bus);
    f.title = Text{fmt::format("Driver's recovery action for {}: {}", label.en, action),
                   fmt::format("驱动对 {} 给出的恢复操作：`{}`", label.zh, action)};
    f.explanation =
        Text{fmt::format("With Xid 154 the driver states what it takes to bring the GPU back: {}.",
                         remedy.meaning.en),
             fmt::format("驱动通过 Xid 154 说明恢复该 GPU 所需的操作：{}。", remedy.meaning.zh)};
    std::vector<int> causes = CausesBefore(input, bus, last);
    if (!causes.empty()) {
      std::string list = fmt::format("{}", fmt::join(causes, ", "));
      f.explanation.en += fmt::format(
          " It followed Xid {} on the same GPU: see that finding for "
          "the cause.",
          list);
      f.explanation.zh += fmt::format("它发生在同一 GPU 的 Xid {} 之后：原因请见该项发现。", list);
    }
    events::AddEventEvidence(f, group);
    f.actions = std::move(remedy.actions);
  }
}

}  // namespace xid_recovery_action_rule
}  // namespace

const Rule kXidRecoveryActionRule{
    "xid.recovery_action", "xid",
    "Xid 154: the recovery action the driver requires (GPU reset, node reboot, drain and reset)",
    kNeedsKernelLog, xid_recovery_action_rule::Evaluate};

}  // namespace gpudoctor
