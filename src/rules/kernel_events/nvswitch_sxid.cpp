// nvswitch.sxid: NVSwitch errors (SXid) in the kernel log, one finding per
// switch: fatal -> critical, non-fatal -> warning (the line says which), with
// the Fabric Manager's logged errors beside them. Host-wide: an NVSwitch is
// not a GPU, so `gpus` stays empty. MISSION row 12.
#include <fmt/format.h>

#include <algorithm>

#include "knowledge/xid_catalog.h"
#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace nvswitch_sxid_rule {

using events::EventList;

// Fabric Manager errors: from its log file when collected, and those the
// kernel-log scan found in a fabricmanager.log given as a file.
void AddFabricManagerErrors(const DiagnosisInput& input, Finding& f) {
  events::AddEventEvidence(f, events::EventsOfKind(input, {KernelEventKind::kFabricManagerError}),
                           5);
  if (!input.versions || !input.versions->fabric_manager.log) return;
  const auto& fm = input.versions->fabric_manager;
  std::size_t shown = 0;
  for (auto it = fm.log->last_errors.rbegin(); it != fm.log->last_errors.rend() && shown < 5;
       ++it, ++shown) {
    std::string line = "`" + it->entry.message.substr(0, 200) + "`";
    f.evidence.push_back(
        EvidenceItem{Text{fmt::format("Fabric Manager log {}: {}", it->entry.time_text, line),
                          fmt::format("Fabric Manager 日志 {}：{}", it->entry.time_text, line)},
                     std::nullopt, "", SourceRef{fm.log_path, it->line_number}, std::nullopt});
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList sxids = events::EventsOfKind(input, {KernelEventKind::kSxid});
  for (const auto& [bus, group] : events::ByGpu(sxids)) {
    bool fatal = std::any_of(group.begin(), group.end(),
                             [](const KernelEvent* e) { return e->detail == "fatal"; });
    const SxidNote& note = SxidNoteFor(fatal);
    Finding& f = out.Add(events::FromXidSeverity(note.severity));
    std::string sw = bus.empty() ? "an NVSwitch" : "NVSwitch " + bus;
    std::string sw_zh = bus.empty() ? "某个 NVSwitch" : "NVSwitch " + bus;
    std::string codes;
    for (const KernelEvent* e : group) {
      std::string c = e->code ? std::to_string(*e->code) : "?";
      if (codes.find(c) == std::string::npos) codes += (codes.empty() ? "" : ", ") + c;
    }
    f.title =
        Text{fmt::format("{} error on {} (SXid {})", fatal ? "Fatal" : "Non-fatal", sw, codes),
             fmt::format("{} 出现{}错误（SXid {}）", sw_zh, fatal ? "致命" : "非致命", codes)};
    f.explanation = Text{
        fatal ? "A fatal NVSwitch error: NVLink traffic through the affected ports stops and the "
                "jobs using them fail until the GPUs and switches are reset."
              : "A non-fatal NVSwitch error: traffic continues, but a rising count points to a "
                "failing link or switch.",
        fatal ? "NVSwitch 致命错误：经过相关端口的 NVLink 通信中断，使用它们的任务会失败，直到 GPU "
                "与 "
                "NVSwitch 被重置。"
              : "NVSwitch 非致命错误：通信仍在继续，但错误数持续增加说明链路或交换芯片正在损坏。"};
    events::AddEventEvidence(f, group);
    AddFabricManagerErrors(input, f);
    f.actions.push_back(Action{Text{std::string(note.action_en), std::string(note.action_zh)},
                               "nvidia-smi nvlink -s"});
    f.actions.push_back(Action{Text{"Read the Fabric Manager's log for the same errors.",
                                    "查看 Fabric Manager 日志中的相同错误。"},
                               "sudo tail -n 200 /var/log/fabricmanager.log"});
    if (fatal) f.actions.push_back(events::CollectBugReportAction());
  }
}

}  // namespace nvswitch_sxid_rule
}  // namespace

const Rule kNvswitchSxidRule{"nvswitch.sxid", "nvlink",
                             "NVSwitch errors (SXid): fatal or not, with Fabric Manager log errors",
                             kNeedsKernelLog, nvswitch_sxid_rule::Evaluate};

}  // namespace gpudoctor
