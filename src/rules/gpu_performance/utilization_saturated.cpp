// utilization.saturated: utilisation held at about 100 % (sustained 100 %
// may throttle). Normal for training, so info; a warning
// only when the clocks are also held below their maximum by a slowdown
// reason. The cause itself (heat, power brake, HW slowdown) is reported by
// the thermal, power and clock rules; here it is only named in the evidence.
#include <fmt/format.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace utilization_saturated_rule {

// Clocks below this share of their maximum are "held down", not boost jitter.
constexpr double kClockBelowMaxRatio = 0.9;

// The slowdown reasons of a reading that count against the GPU: the power
// cap at the card's default limit is its design at full load, not a fault.
std::uint64_t SlowdownBits(const GpuStatus& s) {
  if (!s.clock_event_reasons_mask) return 0;
  std::uint64_t bits = 0;
  for (const ClockReason& r : AllClockReasons()) {
    if ((*s.clock_event_reasons_mask & r.bit) != 0 && IsSlowdownReason(r.bit)) bits |= r.bit;
  }
  auto limit = perf::PowerLimitW(s);
  bool at_design_limit = limit && s.power_default_limit_w && *limit >= *s.power_default_limit_w - 1;
  if (at_design_limit) bits &= ~ClockReasonBit("sw_power_cap");
  return bits;
}

bool ClockHeldDown(const GpuStatus& s) {
  if (!s.clocks_sm_mhz || !s.clocks_max_sm_mhz || *s.clocks_max_sm_mhz <= 0) return false;
  return static_cast<double>(*s.clocks_sm_mhz) <
         kClockBelowMaxRatio * static_cast<double>(*s.clocks_max_sm_mhz);
}

std::string ReasonText(std::uint64_t bits) {
  std::string text;
  for (const ClockReason& r : AllClockReasons()) {
    if ((bits & r.bit) == 0) continue;
    if (!text.empty()) text += ", ";
    text += std::string(r.text);
  }
  return text;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const double saturated = input.config.thresholds.utilization_saturated_percent;
  const double fraction = input.config.sustained_fraction;
  for (const GpuSeries& gpu : input.gpus) {
    auto util = perf::IntSeries(gpu, &GpuStatus::utilization_gpu_percent);
    if (!SustainedAtOrAbove(util, saturated, fraction)) continue;
    std::uint64_t seen = 0;
    auto slowed = perf::ShareOfReadings(gpu, [&](const GpuStatus& s) -> std::optional<bool> {
      std::uint64_t bits = SlowdownBits(s);
      bool held = bits != 0 && ClockHeldDown(s);
      if (held) seen |= bits;
      return held;
    });
    bool throttled = slowed && *slowed >= fraction;
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(throttled ? Severity::kWarning : Severity::kInfo);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    auto stats = Summarize(util);
    f.title =
        throttled
            ? Text{fmt::format("{} is fully loaded and its clocks are held down", label),
                   fmt::format("{} 满负载运行且频率被压低", label)}
            : Text{fmt::format("{} is fully loaded", label), fmt::format("{} 处于满负载", label)};
    f.explanation = Text{
        "Utilisation stays at about 100 %: normal for training, but the GPU then runs at its "
        "power and heat limits and any throttling slows the job directly." +
            std::string(throttled ? " Here the clocks are also below their maximum because of the "
                                    "slowdown reasons listed; see the findings about them."
                                  : ""),
        "利用率持续在 100 % 左右：这对训练来说是正常的，但此时 GPU "
        "处于功耗和温度的极限，任何降频都会"
        "直接拖慢任务。" +
            std::string(throttled ? "此处频率还因所列的降频原因低于最高值，请参见与之相关的结论。"
                                  : "")};
    f.evidence.push_back(perf::Measured(
        fmt::format("utilisation avg {} % over {} readings", FormatNumber(stats->avg),
                    stats->count),
        fmt::format("{} 次读数中利用率平均 {} %", stats->count, FormatNumber(stats->avg)),
        stats->avg, "percent"));
    if (throttled) {
      std::string reasons = ReasonText(seen);
      f.evidence.push_back(
          perf::Measured(fmt::format("SM clock below {} % of max in {} % of readings; reasons: {}",
                                     FormatNumber(kClockBelowMaxRatio * 100, 0),
                                     FormatNumber(*slowed * 100, 0), reasons),
                         fmt::format("{} % 的读数中 SM 频率低于最高值的 {} %；降频原因：`{}`",
                                     FormatNumber(*slowed * 100, 0),
                                     FormatNumber(kClockBelowMaxRatio * 100, 0), reasons),
                         *slowed * 100, "percent"));
    }
    f.actions.push_back(
        Action{Text{"Watch clocks, power, temperature and clock-event reasons while the job runs.",
                    "在任务运行期间观察频率、功耗、温度和降频原因。"},
               fmt::format("nvidia-smi -i {} -q -d PERFORMANCE,CLOCK,POWER,TEMPERATURE", g.index)});
  }
}

}  // namespace utilization_saturated_rule
}  // namespace

const Rule kSaturatedUtilizationRule{
    "utilization.saturated", "utilization",
    "Utilisation held at about 100 %; warning when clocks are also held down by a slowdown reason",
    kNeedsGpuReadings, utilization_saturated_rule::Evaluate};

}  // namespace gpudoctor
