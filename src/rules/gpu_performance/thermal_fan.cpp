// thermal.fan: signs of a failing fan on a GPU that has fans: a fan
// standing at 0 % while the GPU is hot, a fan speed that cannot be
// read (nvidia-smi "ERR!"), or fans pinned at 100 % while the GPU stays hot
// (cooling at its limit). Passively cooled data-centre boards report no fan
// speed at all (nullopt, NVML "not supported") and are never judged here.
#include <fmt/format.h>

#include <algorithm>

#include "rules/engine/gpu_broken.h"
#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace thermal_fan_rule {

// Fans with a zero-speed mode spin up well before this; a fan still at 0 %
// above it is not turning.
constexpr double kFanShouldSpinC = 70;

std::vector<std::int64_t> Fans(const GpuStatus& g) {
  if (!g.fan_speeds_percent.empty()) return g.fan_speeds_percent;
  if (g.fan_speed_percent) return {*g.fan_speed_percent};
  return {};
}

// The error of a fan reading that failed for a reason that can mean a broken
// fan; permission problems say nothing about the fan.
std::optional<std::string> FanError(const GpuStatus& g) {
  for (const char* key : {"fan_speeds_percent", "fan_speed_percent"}) {
    auto it = g.field_errors.find(key);
    if (it == g.field_errors.end()) continue;
    if (it->second.find("ermission") != std::string::npos) continue;
    return it->second;
  }
  return std::nullopt;
}

Finding& AddFanFinding(RuleOutput& out, Severity severity, const GpuStatus& g, Text title,
                       Text explanation) {
  Finding& f = out.Add(severity);
  f.gpus.push_back(g.pci_bus_id);
  f.title = std::move(title);
  f.explanation = std::move(explanation);
  f.actions.push_back(Action{
      Text{"Read the fan speeds and temperatures of this GPU.", "查看该 GPU 的风扇转速和温度。"},
      fmt::format("nvidia-smi -i {} -q -d TEMPERATURE,FAN", g.index)});
  f.actions.push_back(
      Action{Text{"Have the fan or the board serviced: a failing fan ends in thermal slowdown or a "
                  "shutdown. On a cloud instance, report the host to the provider.",
                  "安排维修风扇或板卡：风扇故障最终会导致温度降频或关机。云服务器上请向云厂商报告该"
                  "宿主机。"},
             ""});
  return f;
}

void CheckStopped(const DiagnosisInput& input, const GpuSeries& gpu, double hot_c,
                  RuleOutput& out) {
  auto stopped = perf::ShareOfReadings(gpu, [hot_c](const GpuStatus& s) -> std::optional<bool> {
    auto fans = Fans(s);
    if (fans.empty() || !s.temperature_c || static_cast<double>(*s.temperature_c) <= hot_c) {
      return std::nullopt;
    }
    return *std::min_element(fans.begin(), fans.end()) == 0;
  });
  if (!stopped || *stopped < input.config.sustained_fraction) return;
  const GpuStatus& g = gpu.latest();
  auto temps = perf::IntSeries(gpu, &GpuStatus::temperature_c);
  bool overheating = SustainedAtOrAbove(temps, input.config.thresholds.temperature_high_c,
                                        input.config.sustained_fraction);
  std::string label = GpuLabel(g);
  Finding& f = AddFanFinding(
      out, overheating ? Severity::kCritical : Severity::kWarning, g,
      Text{fmt::format("{}: a fan stands still while the GPU is hot", label),
           fmt::format("{}：GPU 温度很高但有风扇停转", label)},
      Text{fmt::format("A fan reads 0 % while the GPU is above {} °C. Fans spin up long before "
                       "this temperature, so the fan has most likely failed or is unplugged.",
                       FormatNumber(hot_c)),
           fmt::format("GPU 温度高于 {} °C 时仍有风扇转速为 0 %。风扇早在此温度之前就应开始转动，"
                       "因此该风扇很可能已损坏或未接好。",
                       FormatNumber(hot_c))});
  auto stats = Summarize(temps);
  f.evidence.push_back(
      perf::Measured(fmt::format("a fan at 0 % in {} % of the readings above {} °C",
                                 FormatNumber(*stopped * 100, 0), FormatNumber(hot_c)),
                     fmt::format("高于 {} °C 的读数中有 {} % 存在转速为 0 % 的风扇",
                                 FormatNumber(hot_c), FormatNumber(*stopped * 100, 0)),
                     *stopped * 100, "percent"));
  if (stats) {
    f.evidence.push_back(perf::Measured(
        fmt::format("temperature max {} °C", FormatNumber(stats->max)),
        fmt::format("温度最高 {} °C", FormatNumber(stats->max)), stats->max, "celsius"));
  }
}

void CheckUnreadable(const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  // A lost GPU, or one failing most queries, fails every reading, not only the
  // fan: gpu.lost says so.
  if (g.state != GpuState::kOk || AnswersMostlyWithErrors(g)) return;
  auto error = FanError(g);
  if (!error) return;
  std::string label = GpuLabel(g);
  Finding& f = AddFanFinding(
      out, Severity::kWarning, g,
      Text{fmt::format("{}: the fan speed cannot be read", label),
           fmt::format("{}：无法读取风扇转速", label)},
      Text{"The GPU answers, but reading its fan speed fails (nvidia-smi shows ERR! there). A "
           "fan that cannot be read is often a fan that has failed or lost its connector.",
           "GPU 可以正常响应，但读取风扇转速失败（nvidia-smi 在该处显示 ERR!）。无法读取转速的风扇"
           "往往已经损坏或接头松脱。"});
  f.evidence.push_back(EvidenceItem{Text{fmt::format("fan speed reading failed: {}", *error),
                                         fmt::format("读取风扇转速失败：`{}`", *error)},
                                    std::nullopt, "", std::nullopt, gpu.times.back()});
}

void CheckPinned(const DiagnosisInput& input, const GpuSeries& gpu, double hot_c, RuleOutput& out) {
  const double high_c = input.config.thresholds.temperature_high_c;
  auto pinned_above = [&gpu](double limit_c) {
    return perf::ShareOfReadings(gpu, [limit_c](const GpuStatus& s) -> std::optional<bool> {
      auto fans = Fans(s);
      if (fans.empty() || !s.temperature_c) return std::nullopt;
      return *std::max_element(fans.begin(), fans.end()) >= 100 &&
             static_cast<double>(*s.temperature_c) > limit_c;
    });
  };
  auto hot = pinned_above(hot_c);
  if (!hot || *hot < input.config.sustained_fraction) return;
  auto high = pinned_above(high_c);
  bool too_hot = high && *high >= input.config.sustained_fraction;
  const GpuStatus& g = gpu.latest();
  std::string label = GpuLabel(g);
  Finding& f = AddFanFinding(
      out, too_hot ? Severity::kWarning : Severity::kInfo, g,
      Text{fmt::format("{}: fans at full speed and the GPU still hot", label),
           fmt::format("{}：风扇已全速运转，GPU 温度仍然很高", label)},
      Text{"The fans run at 100 % and cannot cool the GPU further: there is no cooling reserve "
           "left. Hot inlet air, dust, a blocked intake or a weak fan are the usual causes.",
           "风扇已以 100 % 转速运行，无法进一步降温，散热已无余量。常见原因是进风温度过高、积灰、"
           "进风口堵塞或风扇性能衰退。"});
  const double limit_c = too_hot ? high_c : hot_c;
  const double share = too_hot ? *high : *hot;
  f.evidence.push_back(
      perf::Measured(fmt::format("fans at 100 % with the GPU above {} °C in {} % of the readings",
                                 FormatNumber(limit_c), FormatNumber(share * 100, 0)),
                     fmt::format("{} % 的读数中风扇为 100 % 且 GPU 高于 {} °C",
                                 FormatNumber(share * 100, 0), FormatNumber(limit_c)),
                     share * 100, "percent"));
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const double hot_c = std::min(kFanShouldSpinC, input.config.thresholds.temperature_high_c);
  for (const GpuSeries& gpu : input.gpus) {
    CheckStopped(input, gpu, hot_c, out);
    CheckUnreadable(gpu, out);
    CheckPinned(input, gpu, hot_c, out);
  }
}

}  // namespace thermal_fan_rule
}  // namespace

const Rule kFanRule{"thermal.fan", "thermal",
                    "Fan standing still while hot, fan speed unreadable, or fans at 100 % while "
                    "the GPU stays hot",
                    kNeedsGpuReadings, thermal_fan_rule::Evaluate};

}  // namespace gpudoctor
