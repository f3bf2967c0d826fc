// config.pstate: the GPU has work (utilisation in the normal range or above)
// yet stays in a performance state worse than P2 over the window. Under
// compute load a GPU runs at P0, or P2 on many boards; P3 and above while busy
// means its clocks are held low by application clocks, a power limit, or a
// driver or power-management problem. Judged over the window: a GPU that is
// ramping up passes through low P-states briefly.
#include <fmt/format.h>

#include <algorithm>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace config_pstate_rule {

constexpr std::int64_t kWorstBusyPstate = 2;

struct PstateWindow {
  std::size_t judged = 0;  // readings with both utilisation and P-state
  std::size_t low = 0;     // of those, busy and worse than P2
  std::int64_t worst = 0;  // the highest P-state number among the low ones
};

PstateWindow Scan(const GpuSeries& gpu, double busy_percent) {
  PstateWindow w;
  for (const GpuStatus& s : gpu.readings) {
    if (!s.utilization_gpu_percent || !s.pstate) continue;
    ++w.judged;
    if (static_cast<double>(*s.utilization_gpu_percent) < busy_percent || *s.pstate <= kWorstBusyPstate) continue;
    ++w.low;
    w.worst = std::max(w.worst, *s.pstate);
  }
  return w;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    PstateWindow w = Scan(gpu, input.config.thresholds.utilization_normal_min_percent);
    if (w.judged == 0 || static_cast<double>(w.low) < input.config.sustained_fraction * static_cast<double>(w.judged)) {
      continue;
    }
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(gpu.key);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} is busy but stays in a low performance state (P{})", label, w.worst),
                   fmt::format("{} 负载繁忙，却一直处于低性能状态（P{}）", label, w.worst)};
    f.explanation = Text{
        "A GPU with work normally runs in P0 (or P2 on many boards). Staying in a higher P-state "
        "while busy means its clocks are held low: look at the application clocks, the power "
        "limit and the clock event reasons; otherwise a driver or power-management problem.",
        "有任务的 GPU 通常运行在 P0（许多型号为 P2）。繁忙时仍停留在更高编号的 P-state，说明其频率被压低："
        "请检查应用时钟、功耗上限和降频原因；若都正常，则可能是驱动或电源管理问题。"};
    double pct = 100.0 * static_cast<double>(w.low) / static_cast<double>(w.judged);
    f.evidence.push_back(Measured(
        Text{fmt::format("busy in a P-state worse than P2 in {} % of {} readings (worst P{})",
                         FormatNumber(pct, 0), w.judged, w.worst),
             fmt::format("{} 次读数中有 {} % 处于繁忙且 P-state 低于 P2 的状态（最差 P{}）", w.judged,
                         FormatNumber(pct, 0), w.worst)},
        pct, "percent"));
    f.actions.push_back(Action{
        Text{"Look at the clocks, the application clocks and the clock event reasons.",
             "查看时钟、应用时钟与降频原因。"},
        fmt::format("nvidia-smi -q -i {} -d PERFORMANCE,CLOCK,POWER", g.index)});
    f.actions.push_back(Action{Text{"Reset the application clocks to their defaults.", "将应用时钟恢复为默认值。"},
                               fmt::format("sudo nvidia-smi -i {} -rac", g.index)});
  }
}

}  // namespace config_pstate_rule
}  // namespace

const Rule kConfigPstateRule{"config.pstate", "config",
                             "Busy GPU held in a P-state worse than P2 over the window",
                             kNeedsGpuReadings, config_pstate_rule::Evaluate};

}  // namespace gpudoctor
