// host.memory_edac: the EDAC driver's per-DIMM error counters, live
// (collect/edac.h). Any uncorrected error is critical: the kernel killed
// or will kill what used that memory, and the DIMM is failing. Corrected
// errors at 10 or more a day on one DIMM (averaged over the time the
// counters have run; mcelog's default threshold is 10 per 24 h) are a
// warning: the DIMM is wearing out and uncorrected errors tend to follow.
// The kernel-log side of the same faults is host.memory_errors.
#include <fmt/format.h>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace host_memory_edac_rule {

constexpr double kCorrectedPerDay = 10;

std::string Name(const EdacDimm& d) {
  return d.label.empty() ? d.controller + "/" + d.name
                         : fmt::format("{} ({}/{})", d.label, d.controller, d.name);
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const EdacFacts& e = input.host->edac;
  if (!e.present) {
    out.NotCheckedBecause(
        Text{"no EDAC memory controller is registered (virtual machines have "
             "none; on bare metal load the platform's EDAC driver)",
             "未注册 EDAC 内存控制器（虚拟机没有；物理机请加载平台的 EDAC 驱动）"});
    return;
  }
  const std::optional<double> span_s =
      e.counting_for_s && *e.counting_for_s > 0 ? e.counting_for_s : input.host->uptime_s;
  std::vector<const EdacDimm*> failing, wearing;
  std::uint64_t uncorrected = e.uncorrected_unnamed;
  for (const EdacDimm& d : e.dimms) {
    if (d.uncorrected.value_or(0) > 0) {
      failing.push_back(&d);
      uncorrected =
          *d.uncorrected > UINT64_MAX - uncorrected ? UINT64_MAX : uncorrected + *d.uncorrected;
      continue;
    }
    if (static_cast<double>(d.corrected) < kCorrectedPerDay || !span_s || *span_s <= 0) continue;
    const double per_day = static_cast<double>(d.corrected) * 86400.0 / *span_s;
    if (per_day >= kCorrectedPerDay) wearing.push_back(&d);
  }
  if (uncorrected == 0 && wearing.empty()) return;
  Finding& f = out.Add(uncorrected > 0 ? Severity::kCritical : Severity::kWarning);
  std::vector<std::string> names;
  for (const EdacDimm* d : failing) {
    names.push_back(Name(*d));
    f.evidence.push_back(NumberEvidence(fmt::format("{}: {} uncorrected, {} corrected errors",
                                                    Name(*d), *d->uncorrected, d->corrected),
                                        fmt::format("{}：{} 个不可纠正错误，{} 个已纠正错误",
                                                    Name(*d), *d->uncorrected, d->corrected),
                                        static_cast<double>(*d->uncorrected), "errors"));
  }
  if (e.uncorrected_unnamed > 0) {
    f.evidence.push_back(
        NumberEvidence(fmt::format("{} uncorrected errors the controller could not place on a DIMM "
                                   "(ue_noinfo_count)",
                                   e.uncorrected_unnamed),
                       fmt::format("{} 个无法定位到内存条的不可纠正错误（ue_noinfo_count）",
                                   e.uncorrected_unnamed),
                       static_cast<double>(e.uncorrected_unnamed), "errors"));
  }
  for (const EdacDimm* d : wearing) {
    names.push_back(Name(*d));
    const double per_day = static_cast<double>(d->corrected) * 86400.0 / *span_s;
    f.evidence.push_back(
        NumberEvidence(fmt::format("{}: {} corrected errors in {} h, {} a day (warning from {})",
                                   Name(*d), d->corrected, FormatNumber(*span_s / 3600, 1),
                                   FormatNumber(per_day, 1), kCorrectedPerDay),
                       fmt::format("{}：{} 小时内 {} 个已纠正错误，每天 {} 个（每天 {} 个起警告）",
                                   Name(*d), FormatNumber(*span_s / 3600, 1), d->corrected,
                                   FormatNumber(per_day, 1), kCorrectedPerDay),
                       per_day, "errors per day"));
  }
  // An uncorrected error names only the modules that have one.
  if (uncorrected > 0) names.resize(failing.size());
  const std::string list = names.empty() ? "a DIMM the controller did not name"
                                         : fmt::format("{}", fmt::join(names, ", "));
  f.title = uncorrected > 0
                ? Text{fmt::format("Uncorrected memory errors ({}) on {}", uncorrected, list),
                       fmt::format("内存出现不可纠正错误（{} 个）：{}", uncorrected,
                                   names.empty() ? "控制器未指明内存条" : list)}
                : Text{fmt::format("A memory module keeps correcting errors: {}", list),
                       fmt::format("内存条持续出现已纠正错误：{}", list)};
  f.explanation = Text{
      "The memory controller's error-correcting code counts every bit error it finds, per "
      "module. An uncorrected error corrupts or kills what used that memory and marks a failing "
      "module; corrected errors at a steady rate mark one wearing out, and uncorrected ones tend "
      "to follow.",
      "内存控制器的纠错码按内存条统计发现的每个位错误。不可纠正错误会损坏或终止使用该内存的程序，说明内存条正在损坏；"
      "持续出现的已纠正错误说明内存条正在老化，之后往往会出现不可纠正错误。"};
  f.actions.push_back(Action{
      Text{"See the counters per module.", "查看每条内存的计数。"},
      "grep -H . /sys/devices/system/edac/mc/mc*/dimm*/{dimm_label,dimm_ce_count,dimm_ue_count} "
      "2>/dev/null; sudo ras-mc-ctl --error-count"});
  f.actions.push_back(Action{
      uncorrected > 0
          ? Text{"Drain the node and have the module(s) named replaced (or move the instance).",
                 "排空节点并更换所列内存条（云主机则迁移实例）。"}
          : Text{"Plan the module's replacement at the next maintenance window.",
                 "在下一个维护窗口安排更换该内存条。"},
      ""});
}

}  // namespace host_memory_edac_rule
}  // namespace

const Rule kHostMemoryEdacRule{"host.memory_edac", "host",
                               "DIMMs with uncorrected errors, or corrected errors at 10 a day "
                               "or more (EDAC counters in sysfs)",
                               kNeedsHost, host_memory_edac_rule::Evaluate};

}  // namespace gpudoctor
