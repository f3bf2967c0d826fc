// thermal.slowdown: the GPU cut its clocks because it ran hot (NVML's HW or
// SW thermal slowdown reason), or its temperature reached the slowdown
// threshold the GPU itself reports.
#include <fmt/format.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace thermal_slowdown_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const std::uint64_t thermal_bits =
      ClockReasonBit("sw_thermal_slowdown") | ClockReasonBit("hw_thermal_slowdown");
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    auto share = ClockReasonShare(gpu, thermal_bits);
    auto temps = ValuesOf(gpu, [](const GpuStatus& s) -> std::optional<double> {
      if (!s.temperature_c) return std::nullopt;
      return static_cast<double>(*s.temperature_c);
    });
    auto temp = Summarize(temps);
    std::optional<double> slowdown_c;
    if (g.temperature_slowdown_c) slowdown_c = static_cast<double>(*g.temperature_slowdown_c);
    bool reason_seen = share && *share > 0;
    bool at_threshold = temp && slowdown_c && temp->max >= *slowdown_c;
    if (!reason_seen && !at_threshold) continue;

    bool sustained = share && *share >= input.config.sustained_fraction &&
                     gpu.readings.size() >= kMinReadingsForSustained;
    std::optional<double> shutdown_c;
    if (g.temperature_shutdown_c) shutdown_c = static_cast<double>(*g.temperature_shutdown_c);
    bool near_shutdown = temp && shutdown_c && temp->max >= *shutdown_c - 5;
    Finding& f = out.Add(sustained || near_shutdown ? Severity::kCritical : Severity::kWarning);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} slows down because it is too hot", label),
                   fmt::format("{} 因温度过高而降频", label)};
    f.explanation = Text{
        "The GPU lowers its clocks to protect itself when it runs hot, so work on it runs slower "
        "(stutter). The usual causes are poor airflow, a failed fan, a blocked or hot air intake, "
        "or a heat sink that lost contact.",
        "GPU 温度过高时会自动降低频率以保护自身，运行在其上的任务随之变慢（卡顿）。常见原因是风道不畅、"
        "风扇故障、进风口堵塞或进风温度过高，或散热器接触不良。"};
    if (share) {
      std::string pct = FormatNumber(*share * 100, 0);
      f.evidence.push_back(EvidenceItem{
          Text{fmt::format("thermal slowdown active in {} % of {} readings", pct, gpu.readings.size()),
               fmt::format("{} 次读数中有 {} % 处于温度降频状态", gpu.readings.size(), pct)},
          *share * 100, "percent", std::nullopt, std::nullopt});
    }
    if (temp) {
      std::string limit = slowdown_c ? FormatNumber(*slowdown_c) : std::string("?");
      f.evidence.push_back(EvidenceItem{
          Text{fmt::format("temperature max {} °C, avg {} °C (GPU slowdown threshold {} °C)",
                           FormatNumber(temp->max), FormatNumber(temp->avg), limit),
               fmt::format("温度最高 {} °C，平均 {} °C（GPU 降频阈值 {} °C）", FormatNumber(temp->max),
                           FormatNumber(temp->avg), limit)},
          temp->max, "celsius", std::nullopt, std::nullopt});
    }
    f.actions.push_back(Action{
        Text{"Check the fans and airflow: fan speeds, blocked intakes, the inlet temperature of "
             "the rack or room.",
             "检查风扇和风道：风扇转速、进风口是否堵塞、机柜或机房的进风温度。"},
        fmt::format("nvidia-smi -i {} -q -d TEMPERATURE,PERFORMANCE", g.index)});
    f.actions.push_back(Action{
        Text{"On a cloud instance, report the host to the provider: cooling is theirs to fix; "
             "move the job to another instance meanwhile.",
             "云服务器上请向云厂商报告该宿主机的散热问题，同时把任务迁移到其他实例。"},
        ""});
  }
}

}  // namespace thermal_slowdown_rule
}  // namespace

const Rule kThermalSlowdownRule{
    "thermal.slowdown", "thermal",
    "Clocks cut by thermal slowdown, or temperature at the GPU's slowdown threshold",
    kNeedsGpuReadings, thermal_slowdown_rule::Evaluate};

}  // namespace gpudoctor
