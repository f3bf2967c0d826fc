// cpu.throttled: the container's CPU quota held its tasks back over the
// window: the CFS quota ran out in a share of the enforcement periods
// (cpu.stat's nr_throttled against nr_periods). A data loader or the
// framework's host threads that are throttled leave the GPUs waiting even
// when the host has idle cores: the guide's "CPU bottleneck", inside a pod.
// Warning from a quarter of the periods throttled, info from a twentieth;
// nothing below (a limit the job does not reach is no finding). Periods
// are 100 ms by default, so a 10 s window has about 100 of them; fewer than
// 10 elapsed periods (an idle group) say nothing.
#include <fmt/format.h>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace cpu_throttled_rule {

constexpr double kWarnPercent = 25;
constexpr double kInfoPercent = 5;
constexpr std::uint64_t kMinPeriods = 10;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const CgroupLimits& cg = input.host->cgroup;
  if (!cg.cpu_quota_cores) return;  // no quota: nothing can throttle
  if (!cg.throttling) {
    out.NotCheckedBecause(Text{"the CPU quota's cpu.stat could not be read twice over the window",
                               "无法在采样窗口内两次读取 CPU 配额的 cpu.stat"});
    return;
  }
  const CpuThrottling& t = *cg.throttling;
  if (t.periods < kMinPeriods) return;
  const double percent =
      100.0 * static_cast<double>(t.throttled_periods) / static_cast<double>(t.periods);
  if (percent < kInfoPercent) return;
  Finding& f = out.Add(percent >= kWarnPercent ? Severity::kWarning : Severity::kInfo);
  const std::string pct = FormatNumber(percent, 0);
  const std::string cores = FormatNumber(*cg.cpu_quota_cores, 1);
  f.title = Text{fmt::format("The CPU quota ({} cores) throttled this container in {} % of periods",
                             cores, pct),
                 fmt::format("CPU 配额（{} 核）在 {} % 的周期内限制了本容器", cores, pct)};
  f.explanation = Text{
      "The container used up its CPU quota and its tasks waited for the next period. Data "
      "loaders and the framework's host threads held back this way leave the GPUs waiting, even "
      "while the host has idle cores.",
      "容器用完了 CPU 配额，其任务需等待下一个周期。数据加载进程和框架的主机线程因此受限时，即使主机"
      "仍有空闲核心，GPU 也会等待。"};
  f.evidence.push_back(NumberEvidence(
      fmt::format("{} of {} periods throttled over {} s, {} s held back ({}; warning from {} %)",
                  t.throttled_periods, t.periods, FormatNumber(t.window_s, 1),
                  FormatNumber(t.throttled_s, 2), t.file, kWarnPercent),
      fmt::format("{} s 内 {} / {} 个周期被限制，累计受限 {} s（{}；{} % 起为警告）",
                  FormatNumber(t.window_s, 1), t.throttled_periods, t.periods,
                  FormatNumber(t.throttled_s, 2), t.file, kWarnPercent),
      percent, "percent"));
  f.actions.push_back(Action{
      Text{"Raise the container's CPU limit (Kubernetes: resources.limits.cpu), or remove it and "
           "keep the request.",
           "提高容器的 CPU 上限（Kubernetes：resources.limits.cpu），或去掉上限只保留 request。"},
      "cat " + t.file});
  f.actions.push_back(Action{Text{"Match the data loader's workers to the cores the quota gives.",
                                  "让数据加载进程数与配额提供的核心数相匹配。"},
                             ""});
}

}  // namespace cpu_throttled_rule
}  // namespace

const Rule kCpuThrottledRule{"cpu.throttled", "cpu",
                             "The container's CPU quota throttling its tasks (cgroup cpu.stat) "
                             "over the window",
                             kNeedsHost, cpu_throttled_rule::Evaluate};

}  // namespace gpudoctor
