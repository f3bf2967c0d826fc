// nvswitch.sxid: NVSwitch errors (SXid) in the kernel log, one finding per
// switch at the level of its worst code in the SXid catalog (NVIDIA's Fabric
// Manager guide, knowledge/sxid_catalog.h; the line's own "Fatal" /
// "Non-fatal" only for codes the guide does not list, and a line that states
// nothing is not called non-fatal), [severity] overrides applied, with the
// Fabric Manager's logged errors beside them. Host-wide: an NVSwitch is
// not a GPU, so `gpus` stays empty.
#include <fmt/format.h>

#include <algorithm>

#include "knowledge/severity_policy.h"
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

SxidLineSays LineSays(const KernelEvent& e) {
  if (e.detail == "fatal") return SxidLineSays::kFatal;
  if (e.detail == "non-fatal") return SxidLineSays::kNonFatal;
  return SxidLineSays::kNothing;
}

// "20034 LTSSM Fault Up" (the catalog's name when it has one).
std::string CodeName(int code) {
  auto known = FindSxid(code);
  return known ? fmt::format("{} {}", code, known->name) : std::to_string(code);
}

struct CodeSummary {
  int code = 0;
  CodeLevel level;
  SxidLineSays says = SxidLineSays::kNothing;
};

// One entry per code of the group, in first-seen order, each at the level
// the policy gives it (a line that states the severity beats one that does
// not, for codes the catalog does not list).
std::vector<CodeSummary> Summarize(const EventList& group, const SeverityOverrides& overrides) {
  std::vector<CodeSummary> codes;
  for (const KernelEvent* e : group) {
    if (!e->code) continue;
    SxidLineSays says = LineSays(*e);
    auto it = std::find_if(codes.begin(), codes.end(),
                           [&](const CodeSummary& c) { return c.code == *e->code; });
    if (it == codes.end()) {
      codes.push_back(CodeSummary{*e->code, SxidLevelOf(*e->code, says, overrides), says});
    } else if (it->says == SxidLineSays::kNothing && says != SxidLineSays::kNothing) {
      *it = CodeSummary{*e->code, SxidLevelOf(*e->code, says, overrides), says};
    }
  }
  return codes;
}

void Explain(Finding& f, XidSeverity worst, bool stated_non_fatal, bool listed,
             const std::string& sw, const std::string& sw_zh, const std::string& codes,
             const std::string& codes_zh) {
  if (worst == XidSeverity::kCritical) {
    f.title = Text{fmt::format("Error on {} stops NVLink traffic (SXid {})", sw, codes),
                   fmt::format("{} 出现中断 NVLink 通信的错误（SXid {}）", sw_zh, codes_zh)};
    f.explanation = Text{
        "NVIDIA's Fabric Manager guide lists this error as one that stops NVLink traffic through "
        "the affected ports: the jobs using them hang or fail until the GPUs and switches are "
        "reset.",
        "NVIDIA Fabric Manager 指南将该错误列为会中断相关端口 NVLink 通信的错误：使用这些端口的"
        "任务会卡住或失败，直到 GPU 与 NVSwitch 被重置。"};
  } else if (worst == XidSeverity::kInfo) {
    f.title = Text{fmt::format("Corrected error on {} (SXid {})", sw, codes),
                   fmt::format("{} 出现已纠正的错误（SXid {}）", sw_zh, codes_zh)};
    f.explanation = Text{
        "NVIDIA's Fabric Manager guide lists this error as corrected by the switch or safe to "
        "ignore; a rising count is still worth watching.",
        "NVIDIA Fabric Manager 指南将该错误列为已由交换芯片纠正或可忽略；若数量持续增加仍需关注。"};
  } else if (stated_non_fatal) {
    f.title = Text{fmt::format("Non-fatal error on {} (SXid {})", sw, codes),
                   fmt::format("{} 出现非致命错误（SXid {}）", sw_zh, codes_zh)};
    f.explanation = Text{
        "A non-fatal NVSwitch error: traffic continues, but a rising count points to a failing "
        "link or switch.",
        "NVSwitch 非致命错误：通信仍在继续，但错误数持续增加说明链路或交换芯片正在损坏。"};
  } else if (listed) {
    f.title = Text{fmt::format("Error on {} (SXid {})", sw, codes),
                   fmt::format("{} 出现错误（SXid {}）", sw_zh, codes_zh)};
    f.explanation = Text{
        "NVIDIA's Fabric Manager guide lists this error as not fatal by itself (a thermal event, "
        "a privilege error or timeout, a broken connection), but it may come before fatal ones: "
        "watch the same switch and link.",
        "NVIDIA Fabric Manager 指南将该错误列为本身不致命（温度事件、权限错误或超时、连接中断），"
        "但它可能是致命错误的前兆：请关注同一交换芯片和链路。"};
  } else {
    f.title = Text{fmt::format("Error on {} of unstated severity (SXid {})", sw, codes),
                   fmt::format("{} 出现未注明严重程度的错误（SXid {}）", sw_zh, codes_zh)};
    f.explanation = Text{
        "The switch reported an error whose lines do not say whether it is fatal, and NVIDIA's "
        "Fabric Manager guide does not list the code: read the lines around it.",
        "交换芯片报告了错误，但日志行未说明是否致命，NVIDIA Fabric Manager 指南也未列出该代码："
        "请查看其前后的日志。"};
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList sxids = events::EventsOfKind(input, {KernelEventKind::kSxid});
  for (const auto& [bus, group] : events::ByGpu(sxids)) {
    std::vector<CodeSummary> summary = Summarize(group, input.config.severity);
    XidSeverity worst = XidSeverity::kInfo;
    bool stated_non_fatal = false, listed = false;
    std::string codes, codes_zh;  // the names are English: quoted in the Chinese text
    for (const CodeSummary& c : summary) {
      worst = std::max(worst, c.level.severity);
      auto known = FindSxid(c.code);
      listed = listed || known.has_value();
      stated_non_fatal = stated_non_fatal || c.says == SxidLineSays::kNonFatal ||
                         (known && known->sxid_class == SxidClass::kNonFatal);
      codes += (codes.empty() ? "" : ", ") + CodeName(c.code);
      codes_zh += (codes_zh.empty() ? "`" : ", `") + CodeName(c.code) + "`";
    }
    if (summary.empty()) codes = codes_zh = "?";
    const SxidNote& note = SxidNoteFor(worst == XidSeverity::kCritical);
    Finding& f = out.Add(events::FromXidSeverity(worst));
    std::string sw = bus.empty() ? "an NVSwitch" : "NVSwitch " + bus;
    std::string sw_zh = bus.empty() ? "某个 NVSwitch" : "NVSwitch " + bus;
    Explain(f, worst, stated_non_fatal, listed, sw, sw_zh, codes, codes_zh);
    for (const CodeSummary& c : summary) {
      std::string level(XidSeverityName(c.level.severity));
      f.evidence.push_back(EvidenceItem{
          Text{fmt::format("SXid {}: {} ({})", CodeName(c.code), level, c.level.why),
               fmt::format("SXid {}：级别 {}（依据：`{}`）", CodeName(c.code), level, c.level.why)},
          std::nullopt, "", std::nullopt, std::nullopt});
    }
    events::AddEventEvidence(f, group);
    AddFabricManagerErrors(input, f);
    f.actions.push_back(Action{Text{std::string(note.action_en), std::string(note.action_zh)},
                               "nvidia-smi nvlink -s"});
    f.actions.push_back(Action{Text{"Read the Fabric Manager's log for the same errors.",
                                    "查看 Fabric Manager 日志中的相同错误。"},
                               "sudo tail -n 200 /var/log/fabricmanager.log"});
    if (worst == XidSeverity::kCritical) f.actions.push_back(events::CollectBugReportAction());
  }
}

}  // namespace nvswitch_sxid_rule
}  // namespace

const Rule kNvswitchSxidRule{"nvswitch.sxid", "nvlink",
                             "NVSwitch errors (SXid) at the level of NVIDIA's Fabric Manager "
                             "guide, with Fabric Manager log errors",
                             kNeedsKernelLog, nvswitch_sxid_rule::Evaluate};

}  // namespace gpudoctor
