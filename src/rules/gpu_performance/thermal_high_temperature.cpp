// thermal.high_temperature: the GPU core above the configured high
// temperature (85 °C by default), or its HBM memory near the memory
// temperature at which the GPU starts to slow down. About the
// temperature itself; the clock-event reasons are thermal.slowdown's.
#include <fmt/format.h>

#include <algorithm>

#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace thermal_high_temperature_rule {

// HBM throttles at its "memory max" temperature; within this margin of it the
// GPU is one warm minute away from slowing down.
constexpr double kMemoryMarginC = 5;

double ShareAbove(const std::vector<double>& values, double threshold) {
  if (values.empty()) return 0;
  auto n = std::count_if(values.begin(), values.end(), [&](double v) { return v > threshold; });
  return static_cast<double>(n) / static_cast<double>(values.size());
}

Action CoolingAction(const GpuStatus& g) {
  return Action{Text{"Check the cooling: fan speeds, blocked intakes, the inlet temperature of the "
                     "rack or room, and whether neighbouring GPUs blow hot air into this one.",
                     "检查散热：风扇转速、进风口是否堵塞、机柜或机房的进风温度，以及相邻 GPU "
                     "是否把热风吹向这块卡。"},
                fmt::format("nvidia-smi -i {} -q -d TEMPERATURE", g.index)};
}

Action ReportAction() {
  return Action{Text{"On a cloud instance, report the host's cooling to the provider and move the "
                     "job meanwhile.",
                     "云服务器上请向云厂商报告该宿主机的散热问题，同时把任务迁移到其他实例。"},
                ""};
}

void CheckCore(const DiagnosisInput& input, const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  const double high_c = input.config.thresholds.temperature_high_c;
  auto temps = perf::IntSeries(gpu, &GpuStatus::temperature_c);
  auto stats = Summarize(temps);
  if (!stats || stats->max <= high_c) return;
  double share = ShareAbove(temps, high_c);
  bool sustained = share >= input.config.sustained_fraction;
  Finding& f = out.Add(sustained ? Severity::kWarning : Severity::kInfo);
  f.gpus.push_back(g.pci_bus_id);
  std::string label = GpuLabel(g);
  std::string high = FormatNumber(high_c);
  f.title = sustained ? Text{fmt::format("{} runs hotter than {} °C", label, high),
                             fmt::format("{} 持续高于 {} °C", label, high)}
                      : Text{fmt::format("{} briefly went above {} °C", label, high),
                             fmt::format("{} 曾短暂高于 {} °C", label, high)};
  f.explanation = Text{
      "Above this temperature the GPU is close to its thermal protection: at its slowdown "
      "threshold it lowers its clocks (stutter), at its shutdown threshold it stops. Running hot "
      "for long also ages the board. Heat this high points to cooling: airflow, fans or the room.",
      "超过该温度后 GPU "
      "已接近自身的过热保护：达到降频阈值时会降低频率（卡顿），达到关机阈值时会停止工作。"
      "长期高温也会加速板卡老化。温度这么高通常说明散热有问题：风道、风扇或机房环境。"};
  std::string pct = FormatNumber(share * 100, 0);
  f.evidence.push_back(perf::Measured(
      fmt::format("temperature max {} °C, avg {} °C; above {} °C in {} % of {} readings",
                  FormatNumber(stats->max), FormatNumber(stats->avg), high, pct, stats->count),
      fmt::format("温度最高 {} °C，平均 {} °C；{} 次读数中有 {} % 高于 {} °C",
                  FormatNumber(stats->max), FormatNumber(stats->avg), stats->count, pct, high),
      stats->max, "celsius"));
  if (g.temperature_slowdown_c) {
    auto slowdown = static_cast<double>(*g.temperature_slowdown_c);
    f.evidence.push_back(perf::Measured(
        fmt::format("the GPU's slowdown threshold is {} °C", FormatNumber(slowdown)),
        fmt::format("该 GPU 的降频阈值为 {} °C", FormatNumber(slowdown)), slowdown, "celsius"));
  }
  f.actions.push_back(CoolingAction(g));
  f.actions.push_back(ReportAction());
}

void CheckMemory(const DiagnosisInput& input, const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  if (!g.temperature_memory_max_c) return;
  auto max_c = static_cast<double>(*g.temperature_memory_max_c);
  auto temps = perf::IntSeries(gpu, &GpuStatus::memory_temperature_c);
  auto stats = Summarize(temps);
  if (!stats || stats->max < max_c - kMemoryMarginC) return;
  bool sustained =
      SustainedAtOrAbove(temps, max_c - kMemoryMarginC, input.config.sustained_fraction);
  Finding& f = out.Add(sustained || stats->max >= max_c ? Severity::kWarning : Severity::kInfo);
  f.gpus.push_back(g.pci_bus_id);
  std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{} memory (HBM) is near its maximum temperature", label),
                 fmt::format("{} 显存（HBM）温度接近其上限", label)};
  f.explanation = Text{
      "The GPU slows down when its memory reaches its maximum operating temperature, even while "
      "the "
      "core temperature looks normal. Memory this hot points to poor airflow over the board.",
      "显存温度达到最高工作温度时，即使核心温度看起来正常，GPU "
      "也会降频。显存温度如此之高，说明板卡上的"
      "风道不畅。"};
  f.evidence.push_back(perf::Measured(
      fmt::format("memory temperature max {} °C, avg {} °C (memory max {} °C)",
                  FormatNumber(stats->max), FormatNumber(stats->avg), FormatNumber(max_c)),
      fmt::format("显存温度最高 {} °C，平均 {} °C（显存上限 {} °C）", FormatNumber(stats->max),
                  FormatNumber(stats->avg), FormatNumber(max_c)),
      stats->max, "celsius"));
  f.actions.push_back(CoolingAction(g));
  f.actions.push_back(ReportAction());
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    CheckCore(input, gpu, out);
    CheckMemory(input, gpu, out);
  }
}

}  // namespace thermal_high_temperature_rule
}  // namespace

const Rule kHighTemperatureRule{
    "thermal.high_temperature", "thermal",
    "GPU temperature above the high threshold, or HBM memory near its maximum temperature",
    kNeedsGpuReadings, thermal_high_temperature_rule::Evaluate};

}  // namespace gpudoctor
