// power.fluctuation: power draw swinging strongly while the GPU works
// ("power draw fluctuating strongly = unstable
// supply"). A workload that keeps stalling (waiting for data, for other
// ranks) swings the same way, so the finding names both. A power draw the
// driver cannot read at all (nvidia-smi's `ERR! / 250W`, an NVML error) is
// this rule's too: nothing can be said of the supply while it lasts. Info
// when it is one reading (often transient), a warning when every one of
// several readings failed; a GPU that answers most queries with errors is
// gpu.lost's, not a power problem.
#include <fmt/format.h>

#include "rules/engine/gpu_broken.h"
#include "rules/engine/window_stats.h"
#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"

namespace gpudoctor {
namespace {
namespace power_fluctuation_rule {

// Fewer readings cannot tell a swing from a step.
constexpr std::size_t kMinReadings = 5;
// Swings smaller than this share of the power limit are ordinary load changes.
constexpr double kMinPeakToPeakOfLimit = 0.3;
// A job starting or ending is one step (one crossing of the mean); two full
// up-and-down swings cross it at least four times.
constexpr std::size_t kMinMeanCrossings = 4;

std::size_t MeanCrossings(const std::vector<double>& values, double mean) {
  std::size_t crossings = 0;
  for (std::size_t i = 1; i < values.size(); ++i) {
    if ((values[i - 1] < mean) != (values[i] < mean)) ++crossings;
  }
  return crossings;
}

bool Working(const GpuSeries& gpu) {
  for (const GpuStatus& r : gpu.readings) {
    if (perf::HoldsWork(r)) return true;
  }
  auto util = Summarize(perf::IntSeries(gpu, &GpuStatus::utilization_gpu_percent));
  return util && util->avg >= perf::kIdleUtilizationPercent;
}

// A persistent failure needs this many readings, all failed.
constexpr std::size_t kPersistentReadings = 3;

// The error of a power draw reading that failed for a reason that says
// something about the GPU (not a permission or an unsupported query).
std::optional<std::string> PowerReadError(const GpuStatus& g) {
  auto it = g.field_errors.find("power_draw_w");
  if (it == g.field_errors.end() || g.power_draw_w) return std::nullopt;
  const std::string& why = it->second;
  if (why.find("ermission") != std::string::npos || why.find("ot supported") != std::string::npos)
    return std::nullopt;
  return why;
}

void ReportUnreadable(const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  auto why = PowerReadError(g);
  if (!why || AnswersMostlyWithErrors(g)) return;
  std::size_t failed = 0;
  for (const GpuStatus& r : gpu.readings) failed += PowerReadError(r) ? 1 : 0;
  const bool persistent = failed >= kPersistentReadings && failed == gpu.readings.size();
  Finding& f = out.Add(persistent ? Severity::kWarning : Severity::kInfo);
  f.gpus.push_back(g.pci_bus_id);
  std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{}: power draw could not be read", label),
                 fmt::format("{}：无法读取功耗", label)};
  f.explanation = Text{
      "The driver could not read the GPU's power draw (nvidia-smi shows ERR! in the power "
      "column). Once, it is usually transient; when it stays, the board's power monitor or the "
      "driver is failing, and power capping and the power findings go blind.",
      "驱动无法读取该 GPU 的功耗（nvidia-smi 的功耗列显示 ERR!）。偶尔一次通常是暂时的；若持续"
      "出现，说明板卡的功耗监测或驱动出现故障，功率封顶和功耗相关的判断都将失效。"};
  f.evidence.push_back(EvidenceItem{
      Text{fmt::format("power draw: {} ({} of {} readings)", *why, failed, gpu.readings.size()),
           fmt::format("功耗读数：`{}`（{} 次读数中有 {} 次）", *why, gpu.readings.size(), failed)},
      static_cast<double>(failed), "count", std::nullopt, std::nullopt});
  f.actions.push_back(
      Action{Text{"Read the power sensor again over a minute.", "在一分钟内多次读取功耗传感器。"},
             fmt::format("nvidia-smi -i {} -q -d POWER -l 5", g.index)});
  f.actions.push_back(Action{Text{"If it keeps failing, update the driver; then have the board "
                                  "checked (on a cloud instance, report it to the provider).",
                                  "若持续失败，请升级驱动，然后检查板卡（云服务器请报告云厂商）。"},
                             ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) ReportUnreadable(gpu, out);
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    auto draws = perf::RealSeries(gpu, &GpuStatus::power_draw_w);
    auto limit = perf::PowerLimitW(g);
    if (draws.size() < kMinReadings || !limit) continue;
    auto cv = CoefficientOfVariation(draws);
    double swing_w = PeakToPeak(draws);
    if (!cv || *cv <= input.config.thresholds.power_fluctuation_cv) continue;
    if (swing_w <= kMinPeakToPeakOfLimit * *limit || !Working(gpu)) continue;
    auto stats = Summarize(draws);
    if (MeanCrossings(draws, stats->avg) < kMinMeanCrossings) continue;

    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{}: power draw fluctuates strongly", label),
                   fmt::format("{}：功耗剧烈波动", label)};
    f.explanation = Text{
        "The power draw swings up and down by a large part of the power limit while the GPU "
        "works. Either the supply is unstable (power brake, a weak or overloaded PSU), or the "
        "workload keeps stalling, waiting for data or for other GPUs, and the GPU idles between "
        "bursts. Both show as stutter.",
        "GPU 工作期间功耗大幅上下波动，幅度占功率上限的很大一部分。原因要么是供电不稳（功率刹车、"
        "电源容量不足或过载），要么是任务频繁停顿（等待数据或等待其他 GPU），GPU "
        "在两次计算之间空闲。"
        "两者都会表现为卡顿。"};
    f.evidence.push_back(perf::Measured(
        fmt::format("power draw {}–{} W, avg {} W over {} readings (limit {} W)",
                    FormatNumber(stats->min, 0), FormatNumber(stats->max, 0),
                    FormatNumber(stats->avg, 0), stats->count, FormatNumber(*limit, 0)),
        fmt::format("{} 次读数中功耗 {}–{} W，平均 {} W（上限 {} W）", stats->count,
                    FormatNumber(stats->min, 0), FormatNumber(stats->max, 0),
                    FormatNumber(stats->avg, 0), FormatNumber(*limit, 0)),
        swing_w, "watts"));
    f.evidence.push_back(perf::Measured(
        fmt::format("coefficient of variation {} (threshold {})", FormatNumber(*cv, 2),
                    FormatNumber(input.config.thresholds.power_fluctuation_cv, 2)),
        fmt::format("变异系数 {}（阈值 {}）", FormatNumber(*cv, 2),
                    FormatNumber(input.config.thresholds.power_fluctuation_cv, 2)),
        *cv, "ratio"));
    f.actions.push_back(Action{
        Text{
            "Watch power, utilisation and clock-event reasons together: drops of utilisation "
            "with the power point to the workload, power brake or HW slowdown to the supply.",
            "同时观察功耗、利用率和降频原因：利用率随功耗一起下降说明是任务本身的问题，出现功率刹车"
            "或 HW Slowdown 则说明是供电问题。"},
        fmt::format("nvidia-smi dmon -i {} -s pucv", g.index)});
    f.actions.push_back(
        Action{Text{"If the workload stalls: check data loading and the CPU, and the communication "
                    "between GPUs (NCCL).",
                    "如果是任务停顿：检查数据加载和 CPU，以及 GPU 之间的通信（NCCL）。"},
               ""});
    f.actions.push_back(Action{
        Text{"If the supply is suspect: check PSU capacity (at least 20 % headroom over all "
             "boards plus CPUs) and the power cables, or report the host to the cloud provider.",
             "如果怀疑供电：检查电源容量（相对所有板卡与 CPU 功耗之和至少留 20 % 余量）和供电线缆，"
             "或向云厂商报告该宿主机。"},
        ""});
  }
}

}  // namespace power_fluctuation_rule
}  // namespace

const Rule kPowerFluctuationRule{
    "power.fluctuation", "power",
    "Power draw swinging strongly (coefficient of variation and peak-to-peak) while working, or a "
    "power draw the driver cannot read (ERR!)",
    kNeedsGpuReadings, power_fluctuation_rule::Evaluate};

}  // namespace gpudoctor
