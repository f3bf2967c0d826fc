// xid.other: every Xid that no more specific xid.* rule owns (see
// group_events.h), decoded with NVIDIA's catalog: meaning, the immediate
// resolution bucket, and our advice. One finding per GPU and code; severity
// from the catalog (unknown codes: its safe default, a warning).
#include <fmt/format.h>

#include <algorithm>

#include "knowledge/xid_catalog.h"
#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace xid_other_rule {

using events::EventList;

// The command that carries out the catalog's immediate bucket, when one does.
std::optional<Action> BucketAction(XidResolution r, const std::string& bus) {
  switch (r) {
    case XidResolution::kResetGpu:
      return events::ResetGpuAction(bus);
    case XidResolution::kRestartBm:
      return events::RebootAction();
    case XidResolution::kContactSupport:
    case XidResolution::kNoneListed:
      return events::CollectBugReportAction();
    default:
      return std::nullopt;
  }
}

void Report(const DiagnosisInput& input, const std::string& bus, int code, const EventList& group,
            RuleOutput& out) {
  const XidInfo& info = LookupXid(code);
  Finding& f =
      out.Add(std::max(events::FromXidSeverity(info.severity), events::XidPolicyFloor(group)));
  if (!bus.empty()) f.gpus.push_back(bus);
  f.xids = {code};
  Text label = events::GpuText(input, bus);
  std::size_t times = events::TotalCount(group);
  f.title = Text{fmt::format("Xid {} on {}: {} ({} times)", code, label.en, info.meaning, times),
                 fmt::format("{} 出现 Xid {}：`{}`（{} 次）", label.zh, code, info.meaning, times)};
  std::string bucket(XidResolutionName(info.immediate));
  std::string category(XidCategoryName(info.category));
  f.explanation = Text{
      fmt::format("NVIDIA's Xid catalog: \"{}\" (category {}, mnemonic {}); immediate action {}.",
                  info.meaning, category, info.mnemonic, bucket),
      fmt::format("NVIDIA Xid 目录：`{}`（类别 `{}`，助记符 {}）；建议的立即处理方式为 {}。",
                  info.meaning, category, info.mnemonic, bucket)};
  if (!info.in_catalog) {
    f.explanation.en +=
        " The code is not in NVIDIA's published catalog, so this is a safe default.";
    f.explanation.zh += "该代码不在 NVIDIA 公布的目录中，因此这里采用保守的默认处理。";
  } else if (info.unused) {
    f.explanation.en +=
        " The newer catalog lists the code as unused; the meaning is from the older "
        "table (older GPUs and drivers).";
    f.explanation.zh +=
        "新版目录将此代码列为未使用；这里的含义取自旧版表格（适用于较旧的 GPU 和驱动）。";
  }
  events::AddEventEvidence(f, group);
  f.actions.push_back(Action{Text{info.action_en, info.action_zh}, ""});
  if (auto a = BucketAction(info.immediate, bus)) f.actions.push_back(std::move(*a));
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList other = events::XidEventsOwnedBy(input, events::XidOwner::kOther);
  for (const auto& [bus, group] : events::ByGpu(other)) {
    for (int code : events::CodesOf(group)) {
      EventList same;
      for (const KernelEvent* e : group) {
        if (e->code == code) same.push_back(e);
      }
      Report(input, bus, code, same, out);
    }
  }
}

}  // namespace xid_other_rule
}  // namespace

const Rule kXidOtherRule{"xid.other", "xid",
                         "Every other Xid, decoded with NVIDIA's catalog (meaning, immediate "
                         "action, advice)",
                         kNeedsXidEvents, xid_other_rule::Evaluate};

}  // namespace gpudoctor
