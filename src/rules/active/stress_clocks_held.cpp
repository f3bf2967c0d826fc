// stress.clocks_held: under the burn, the SM clock stayed well below its
// maximum while NVML gave no reason for it (no power cap, thermal, HW
// slowdown or sync boost bit). A GPU that is loaded and neither hot nor at
// its power limit should boost; held down without a reason points to
// locked clocks set elsewhere (nvidia-smi -lgc, a management agent), a
// firmware limit, or a degraded GPU.
#include <fmt/format.h>

#include "core/clock_reasons.h"
#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_clocks_held_rule {

// SM clock below this share of its maximum counts as held down.
constexpr double kHeldBelow = 0.85;
// ... in at least this share of the burn's samples.
constexpr double kHeldShare = 0.8;
constexpr std::size_t kMinBurnSamples = 3;

bool HasSlowdownReason(std::uint64_t mask) {
  for (const ClockReason& r : AllClockReasons()) {
    if ((mask & r.bit) != 0 && IsSlowdownReason(r.bit)) return true;
  }
  return false;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    const GpuSeries* series = active::SeriesOf(input, gpu);
    if (series == nullptr || !gpu.burn_started_s) continue;
    std::size_t burn = 0, held = 0;
    double clock_sum = 0;
    std::int64_t max_clock = 0;
    for (std::size_t i = 0; i < series->readings.size(); ++i) {
      const GpuStatus& r = series->readings[i];
      if (!series->times[i] || r.state != GpuState::kOk || !r.clocks_sm_mhz || !r.clocks_max_sm_mhz) continue;
      double at = active::SecondsIntoRun(*input.active, *series->times[i]);
      if (at < *gpu.burn_started_s || at > gpu.burn_ended_s.value_or(at)) continue;
      if (r.clock_event_reasons_mask && HasSlowdownReason(*r.clock_event_reasons_mask)) continue;
      ++burn;
      max_clock = *r.clocks_max_sm_mhz;
      if (static_cast<double>(*r.clocks_sm_mhz) < kHeldBelow * static_cast<double>(max_clock)) {
        ++held;
        clock_sum += static_cast<double>(*r.clocks_sm_mhz);
      }
    }
    if (burn < kMinBurnSamples || static_cast<double>(held) < kHeldShare * static_cast<double>(burn)) continue;
    double avg = clock_sum / static_cast<double>(held);
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(gpu.pci_bus_id);
    std::string label = active::Label(gpu);
    f.title = Text{fmt::format("{} held its SM clock at {} of {} MHz under full load, with no reason given",
                               label, FormatNumber(avg, 0), max_clock),
                   fmt::format("{} 满载下 SM 频率停留在 {} MHz（最高 {} MHz），且没有给出降频原因", label,
                               FormatNumber(avg, 0), max_clock)};
    f.evidence.push_back(active::Number(
        Text{fmt::format("{} of {} burn samples below {} % of the maximum, none with a slowdown reason", held,
                         burn, FormatNumber(100 * kHeldBelow, 0)),
             fmt::format("{} 个满载采样中有 {} 个低于最高频率的 {} %，且均无降频原因", burn, held,
                         FormatNumber(100 * kHeldBelow, 0))},
        avg, "mhz"));
    f.explanation = Text{
        "A loaded GPU that is neither hot nor at its power limit boosts towards its maximum clock. "
        "Held well below it without any clock event reason, its clocks are locked or limited "
        "elsewhere: locked GPU clocks (nvidia-smi -lgc), a management agent, a firmware limit, or a "
        "degraded GPU.",
        "负载下既不过热也未达功率上限的 GPU 会升频至接近最高频率。若频率远低于最高值却没有任何降频原因，"
        "说明频率在别处被锁定或限制：锁定的 GPU 频率（`nvidia-smi -lgc`）、管理代理、固件限制，或 GPU 性能退化。"};
    f.actions.push_back(Action{
        Text{"Read the clocks, their locks and the application clocks of this GPU.",
             "查看该 GPU 的频率、频率锁定和应用时钟设置。"},
        fmt::format("nvidia-smi -i {} -q -d CLOCK,PERFORMANCE", gpu.index)});
    f.actions.push_back(Action{
        Text{"If the clocks are locked and nobody needs that, reset them (this changes a GPU setting).",
             "若频率被锁定且无需如此，将其复位（这会修改 GPU 设置）。"},
        fmt::format("sudo nvidia-smi -i {} -rgc", gpu.index)});
  }
}

}  // namespace stress_clocks_held_rule
}  // namespace

const Rule kStressClocksHeldRule{
    "stress.clocks_held", "clocks",
    "SM clock held well below its maximum under gpudoctor stress's burn with no clock event reason",
    kNeedsActive, stress_clocks_held_rule::Evaluate};

}  // namespace gpudoctor
