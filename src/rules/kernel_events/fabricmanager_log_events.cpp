// fabricmanager.log_events: Fabric Manager lines found in a log or journal
// (its own fabricmanager.log given to analyze, or systemd's lines about the
// service). NVSwitch fatal errors are critical, non-fatal ones a warning; a
// service that fails to start because the system has no NVSwitch
// (NV_WARN_NOTHING_TO_DO) is harmless and only worth knowing; any other
// start failure is a warning. Errors the running service logs (NVLink
// multicast team set-up, "failed to find the GPU handle ... multicast team")
// are fabric failures, a warning, never "failed to start". An NVSwitch error
// with its SXid code takes the SXid catalog's level (knowledge/
// sxid_catalog.h: 12028, printed non-fatal, stalls NVLink traffic). The live Fabric Manager log and
// service state are judged by the fabricmanager.* system rules.
#include <fmt/format.h>

#include <algorithm>

#include "knowledge/severity_policy.h"
#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace fabricmanager_log_events_rule {

using events::EventList;

bool Mentions(const KernelEvent* e, std::string_view what) {
  return e->message.find(what) != std::string::npos;
}

bool IsNothingToDo(const KernelEvent* e) {
  return Mentions(e, "Nothing to do") || Mentions(e, "NV_WARN_NOTHING_TO_DO");
}

// Start failures: the service did not come up (or had nothing to do).
bool IsStartFailure(const KernelEvent* e) {
  return e->detail != "error" && e->detail != "multicast";
}

// The level of the switch errors: the worst code's in the SXid catalog, or
// the line's word when it names no code.
Severity SwitchErrorLevel(const DiagnosisInput& input, const EventList& errors, bool fatal) {
  Severity worst = Severity::kInfo;
  for (const KernelEvent* e : errors) {
    if (!e->code) {
      worst = std::max(worst, fatal ? Severity::kCritical : Severity::kWarning);
      continue;
    }
    CodeLevel level = SxidLevelOf(*e->code, fatal ? SxidLineSays::kFatal : SxidLineSays::kNonFatal,
                                  input.config.severity);
    worst = std::max(worst, events::FromXidSeverity(level.severity));
  }
  return worst;
}

void AddSwitchErrors(const DiagnosisInput& input, const EventList& errors, bool fatal,
                     RuleOutput& out) {
  Finding& f = out.Add(SwitchErrorLevel(input, errors, fatal));
  const bool stalls = !fatal && f.severity == Severity::kCritical;
  f.title = fatal    ? Text{"Fabric Manager logged fatal NVSwitch errors",
                             "Fabric Manager 记录了 NVSwitch 致命错误"}
            : stalls ? Text{"Fabric Manager logged NVSwitch errors that stall NVLink traffic "
                            "(printed as non-fatal)",
                            "Fabric Manager 记录了会使 NVLink 通信停滞的 NVSwitch 错误（日志标为非致命）"}
                     : Text{"Fabric Manager logged non-fatal NVSwitch errors",
                            "Fabric Manager 记录了 NVSwitch 非致命错误"};
  f.explanation = fatal || stalls
      ? Text{"A fatal NVSwitch error stops NVLink traffic through that switch: jobs using the "
             "GPUs behind it hang or fail (NCCL timeouts) until the GPUs and switches are reset.",
             "NVSwitch 致命错误会中断经过该交换芯片的 NVLink 通信：使用其后 GPU 的任务会卡住或失败"
             "（NCCL 超时），直到 GPU 和 NVSwitch 被重置。"}
      : Text{"A non-fatal NVSwitch error was corrected or contained, but repeated ones point to a "
             "failing link, switch or cable tray and often precede fatal errors.",
             "NVSwitch 非致命错误已被纠正或隔离，但反复出现说明某条链路、交换芯片或线缆托架正在"
             "劣化，常是致命错误的前兆。"};
  events::AddEventEvidence(f, errors);
  for (const KernelEvent* e : errors) {
    if (!e->code) continue;
    CodeLevel level = SxidLevelOf(*e->code, fatal ? SxidLineSays::kFatal : SxidLineSays::kNonFatal,
                                  input.config.severity);
    std::string name(XidSeverityName(level.severity));
    f.evidence.push_back(
        EvidenceItem{Text{fmt::format("SXid {}: {} ({})", *e->code, name, level.why),
                          fmt::format("SXid {}：级别 {}（依据：`{}`）", *e->code, name, level.why)},
                     std::nullopt, "", std::nullopt, std::nullopt});
    break;  // the first code's reason, after the lines
  }
  f.actions.push_back(Action{Text{"Look for the matching SXid lines and NVLink errors.",
                                  "查找对应的 SXid 日志行和 NVLink 错误。"},
                             "sudo dmesg -T | grep -i sxid; nvidia-smi nvlink -e"});
  if (fatal || stalls) {
    f.actions.push_back(Action{Text{"Drain the node, then reset the GPUs and NVSwitches (or reboot).",
                                    "先排空节点上的任务，再重置 GPU 和 NVSwitch（或重启）。"},
                               "sudo reboot"});
  }
  f.actions.push_back(Action{Text{"If the errors keep coming, collect a bug report for the vendor.",
                                  "如果错误持续出现，收集 `nvidia-bug-report` 诊断包提交给厂商。"},
                             "sudo nvidia-bug-report.sh"});
}

void AddFabricFailures(const EventList& errors, RuleOutput& out) {
  bool multicast = std::any_of(errors.begin(), errors.end(),
                               [](const KernelEvent* e) { return e->detail == "multicast"; });
  Finding& f = out.Add(Severity::kWarning);
  f.title = multicast ? Text{"NVLink multicast set-up failed in Fabric Manager",
                             "Fabric Manager 中 NVLink 多播（multicast）设置失败"}
                      : Text{"Fabric Manager reported errors while running",
                             "Fabric Manager 运行中报告了错误"};
  f.explanation = Text{
      "Fabric Manager is running, but failed requests on the NVLink fabric: NVLink SHARP "
      "(multicast) teams that cannot be set up or released make NCCL's NVLS collectives fail "
      "(CUDA error 802 or 401 at bind). A restart of Fabric Manager, or of the node, clears "
      "state that went stale.",
      "Fabric Manager 正在运行，但 NVLink 网络上的请求失败：无法建立或释放 NVLink SHARP（多播）"
      "组会导致 NCCL 的 NVLS 集合通信失败（绑定时 CUDA 错误 802 或 401）。重启 Fabric Manager "
      "或节点可清除失效的状态。"};
  events::AddEventEvidence(f, errors);
  f.actions.push_back(Action{Text{"Read the Fabric Manager log around these errors.",
                                  "查看这些错误前后的 Fabric Manager 日志。"},
                             "sudo grep -n ERROR /var/log/fabricmanager.log | tail -50"});
  f.actions.push_back(Action{Text{"If jobs fail on NVLS, run them with NVLS off until the node "
                                  "is restarted.",
                                  "若任务在 NVLS 上失败，在节点重启前先关闭 NVLS 运行。"},
                             "export NCCL_NVLS_ENABLE=0"});
}

void AddStartFailure(const EventList& failures, bool nothing_to_do, RuleOutput& out) {
  Finding& f = out.Add(nothing_to_do ? Severity::kInfo : Severity::kWarning);
  if (nothing_to_do) {
    f.title = Text{"Fabric Manager is enabled on a system without NVSwitch",
                   "没有 NVSwitch 的系统上启用了 Fabric Manager"};
    f.explanation = Text{
        "Fabric Manager exits with NV_WARN_NOTHING_TO_DO when it finds no NVSwitch: the GPUs "
        "(PCIe cards, or NVLink bridges without switches) do not need it, and its failed "
        "service only adds noise to the logs.",
        "Fabric Manager 找不到 NVSwitch 时会以 NV_WARN_NOTHING_TO_DO 退出：这类 GPU（PCIe 卡，或"
        "没有交换芯片的 NVLink 桥接）不需要它，服务启动失败只会给日志添加噪音。"};
    f.actions.push_back(Action{Text{"Disable the service on this machine.", "在本机上禁用该服务。"},
                               "sudo systemctl disable --now nvidia-fabricmanager"});
  } else {
    f.title = Text{"Fabric Manager failed to start", "Fabric Manager 启动失败"};
    f.explanation = Text{
        "On NVSwitch systems (HGX) CUDA cannot use the GPUs until Fabric Manager runs (error 802, "
        "system not yet initialized). It fails to start most often when its version differs from "
        "the driver's.",
        "在 NVSwitch 系统（HGX）上，Fabric Manager 运行之前 CUDA 无法使用 GPU（错误 802：系统尚未"
        "初始化）。它启动失败最常见的原因是其版本与驱动版本不一致。"};
    f.actions.push_back(Action{Text{"Read why it stopped.", "查看它停止的原因。"},
                               "journalctl -u nvidia-fabricmanager -b --no-pager | tail -50"});
    f.actions.push_back(Action{
        Text{"Make the Fabric Manager package exactly the driver's version, then start it.",
             "确保 Fabric Manager 软件包与驱动版本完全一致，然后启动它。"},
        "cat /proc/driver/nvidia/version; sudo systemctl restart nvidia-fabricmanager"});
  }
  events::AddEventEvidence(f, failures);
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList all = events::EventsOfKind(input, {KernelEventKind::kFabricManagerError});
  EventList fatal, nonfatal, failures, running;
  for (const KernelEvent* e : all) {
    if (Mentions(e, "non-fatal error")) nonfatal.push_back(e);
    else if (Mentions(e, "fatal error")) fatal.push_back(e);
    else if (IsStartFailure(e))
      failures.push_back(e);
    else
      running.push_back(e);
  }
  if (!failures.empty()) {  // a plain error line beside a failed start is part of that story
    EventList multicast;
    for (const KernelEvent* e : running)
      (e->detail == "multicast" ? multicast : failures).push_back(e);
    running = std::move(multicast);
  }
  if (!fatal.empty()) AddSwitchErrors(input, fatal, true, out);
  if (!nonfatal.empty()) AddSwitchErrors(input, nonfatal, false, out);
  if (!running.empty()) AddFabricFailures(running, out);
  if (!failures.empty()) {
    bool nothing_to_do = std::any_of(failures.begin(), failures.end(), IsNothingToDo);
    AddStartFailure(failures, nothing_to_do, out);
  }
}

}  // namespace fabricmanager_log_events_rule
}  // namespace

const Rule kFabricManagerLogEventsRule{
    "fabricmanager.log_events", "fabricmanager",
    "Fabric Manager lines in a log: NVSwitch errors, and service start failures",
    kNeedsKernelLog, fabricmanager_log_events_rule::Evaluate};

}  // namespace gpudoctor
