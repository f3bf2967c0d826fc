// power.cap: the SW power cap reason held over the window while the GPU is
// busy and draws about its enforced limit: the power limit is what bounds its
// speed (field notes: "throttling with normal temperatures"). At the card's
// default limit that is its design; below the default someone lowered it.
#include <fmt/format.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace power_cap_rule {

// Limits are reported in milliwatts; closer than this they are the same.
constexpr double kLimitToleranceW = 1;

// Average draw / enforced limit over the readings with the cap reason set.
std::optional<double> CappedDrawRatio(const GpuSeries& gpu, std::uint64_t cap_bit) {
  double sum = 0;
  std::size_t n = 0;
  for (const GpuStatus& r : gpu.readings) {
    auto limit = perf::PowerLimitW(r);
    if (!r.clock_event_reasons_mask || (*r.clock_event_reasons_mask & cap_bit) == 0) continue;
    if (!limit || !r.power_draw_w) continue;
    sum += *r.power_draw_w / *limit;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

void AddLoweredActions(const GpuStatus& g, double default_w, Finding& f) {
  bool set_here = g.power_limit_w && *g.power_limit_w < default_w - kLimitToleranceW;
  if (set_here) {
    f.actions.push_back(Action{
        Text{"Restore the default power limit (unless it was lowered on purpose, e.g. for the "
             "power supply's sake).",
             "恢复默认功率上限（除非是有意调低的，例如为了照顾电源容量）。"},
        fmt::format("sudo nvidia-smi -i {} -pl {}", g.index, FormatNumber(default_w, 0))});
  } else {
    f.actions.push_back(Action{
        Text{"The limit is enforced from outside the driver (BMC or the platform's power "
             "management): check the BMC's power capping, or ask the cloud provider.",
             "该上限来自驱动之外（BMC 或平台的功率管理）：检查 BMC 的功率封顶设置，或咨询云厂商。"},
        "sudo ipmitool dcmi power reading"});
  }
  f.actions.push_back(Action{Text{"Show the GPU's power limits.", "查看该 GPU 的各项功率上限。"},
                             fmt::format("nvidia-smi -i {} -q -d POWER", g.index)});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const std::uint64_t cap_bit = ClockReasonBit("sw_power_cap");
  const Thresholds& t = input.config.thresholds;
  for (const GpuSeries& gpu : input.gpus) {
    auto share = ClockReasonShare(gpu, cap_bit);
    if (!share || *share < input.config.sustained_fraction) continue;
    auto util = perf::IntSeries(gpu, &GpuStatus::utilization_gpu_percent);
    if (!SustainedAtOrAbove(util, t.utilization_normal_min_percent,
                            input.config.sustained_fraction)) {
      continue;
    }
    auto ratio = CappedDrawRatio(gpu, cap_bit);
    if (!ratio || *ratio < t.power_near_limit_ratio) continue;
    const GpuStatus& g = gpu.latest();
    auto limit = perf::PowerLimitW(g);
    std::optional<double> default_w = g.power_default_limit_w;
    bool lowered = limit && default_w && *limit < *default_w - kLimitToleranceW;
    Finding& f = out.Add(lowered ? Severity::kWarning : Severity::kInfo);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.evidence.push_back(
        perf::ReasonShareEvidence(*share, gpu.readings.size(), "SW power cap", "软件功率封顶"));
    f.evidence.push_back(perf::Measured(
        fmt::format("power draw at {} % of the enforced limit {} W while capped",
                    FormatNumber(*ratio * 100, 0), FormatNumber(limit.value_or(0), 0)),
        fmt::format("封顶期间功耗为强制上限 {} W 的 {} %", FormatNumber(limit.value_or(0), 0),
                    FormatNumber(*ratio * 100, 0)),
        *ratio, "ratio"));
    if (lowered) {
      f.title = Text{fmt::format("{} is held back by a power limit below its default", label),
                     fmt::format("{} 受限于低于默认值的功率上限", label)};
      f.explanation = Text{
          "The GPU is busy and lowers its clocks to stay within its power limit, and that limit "
          "is below the card's default: it runs slower than it could.",
          "GPU "
          "正忙，并为了不超过功率上限而降低频率，而该上限低于板卡默认值：它的运行速度低于应有水平"
          "。"};
      f.evidence.push_back(
          perf::Measured(fmt::format("enforced limit {} W, default limit {} W",
                                     FormatNumber(*limit, 0), FormatNumber(*default_w, 0)),
                         fmt::format("强制上限 {} W，默认上限 {} W", FormatNumber(*limit, 0),
                                     FormatNumber(*default_w, 0)),
                         *default_w, "watts"));
      AddLoweredActions(g, *default_w, f);
    } else {
      f.title = Text{fmt::format("{} runs at its power limit", label),
                     fmt::format("{} 运行在功率上限", label)};
      f.explanation = Text{
          "The GPU is busy and keeps its clocks down to stay within its power limit, which is the "
          "card's default: it is working as designed at full load. Nothing to fix unless the "
          "speed is lower than expected for this card.",
          "GPU 正忙，并为了不超过功率上限而压低频率，该上限即板卡默认值：这是满载下的设计行为。"
          "除非速度明显低于该型号的预期，否则无需处理。"};
    }
  }
}

}  // namespace power_cap_rule
}  // namespace

const Rule kPowerCapRule{"power.cap", "power",
                         "SW power cap held while busy at the enforced limit; warning when that "
                         "limit is below the default",
                         kNeedsGpuReadings, power_cap_rule::Evaluate};

}  // namespace gpudoctor
