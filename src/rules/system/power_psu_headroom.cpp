// power.psu_headroom: the configured power-supply capacity against the sum
// of the GPUs' power limits, which a job at full load can draw at once.
// Practitioners want at least 20 % headroom above the boards' power (field
// notes: power is the first cause of GPUs dropping under load).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rules/system/group.h"
#include "rules/system/system_util.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace power_psu_headroom_rule {

// The most a board may draw: the larger of its enforced and default limits
// (a limit lowered today can be raised again by a reset or a reboot).
std::optional<double> BoardLimitW(const GpuStatus& g) {
  std::optional<double> w;
  for (const auto& v : {g.power_enforced_limit_w, g.power_default_limit_w, g.power_limit_w}) {
    if (v && (!w || *v > *w)) w = v;
  }
  return w;
}

struct Budget {
  double sum_w = 0;
  std::size_t counted = 0;
  double max_min_limit_w = 0;  // the highest minimum limit: how far -pl can go down
};

Budget SumLimits(const DiagnosisInput& input) {
  Budget b;
  for (const GpuSeries& gpu : input.gpus) {
    auto w = BoardLimitW(gpu.latest());
    if (!w) continue;
    b.sum_w += *w;
    ++b.counted;
    if (gpu.latest().power_min_limit_w) {
      b.max_min_limit_w = std::max(b.max_min_limit_w, *gpu.latest().power_min_limit_w);
    }
  }
  return b;
}

void AddActions(const Budget& b, double capacity_w, double headroom, Finding& f) {
  // The per-GPU limit that restores the headroom, when the boards allow it.
  double fit_w = capacity_w / (1 + headroom) / static_cast<double>(b.counted);
  if (fit_w >= b.max_min_limit_w) {
    std::string w = FormatNumber(std::floor(fit_w), 0);
    f.actions.push_back(Action{
        Text{fmt::format("Until the supply is fixed, cap every GPU at {} W so that the sum keeps "
                         "the headroom (lost at reboot unless set again).",
                         w),
             fmt::format("在供电问题解决之前，把每块 GPU 的功耗上限设为 {} "
                         "W，使总和留有余量（重启后失效，需重新设置）。",
                         w)},
        fmt::format("sudo nvidia-smi -pl {}", w)});
  }
  f.actions.push_back(Action{
      Text{"Use a larger power supply, or spread the GPUs over more supplies and rails; remember "
           "the CPUs, memory and fans also draw from it.",
           "使用更大功率的电源，或把 GPU 分散到更多电源和供电线路上；注意 "
           "CPU、内存和风扇也要从中取电。"},
      ""});
  f.actions.push_back(
      Action{Text{"If the capacity in the config is wrong, correct [power] psu_capacity_w.",
                  "如果配置中的电源容量有误，请修正 `[power] psu_capacity_w`。"},
             ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  if (!input.config.psu_capacity_w) {
    out.NotCheckedBecause(Text{
        "the power supply's capacity is unknown: set [power] psu_capacity_w in the config to "
        "compare it with the GPUs' power limits",
        "电源容量未知：请在配置文件中设置 `[power] psu_capacity_w`，以便与 GPU 的功耗上限比较"});
    return;
  }
  Budget b = SumLimits(input);
  if (b.counted == 0) {
    out.NotCheckedBecause(Text{"no GPU reports its power limit", "没有 GPU 报告其功耗上限"});
    return;
  }
  const double capacity_w = *input.config.psu_capacity_w;
  const double headroom = input.config.psu_headroom_ratio.value_or(0.2);
  const double needed_w = b.sum_w * (1 + headroom);
  if (needed_w <= capacity_w) return;

  Finding& f = out.Add(b.sum_w > capacity_w ? Severity::kCritical : Severity::kWarning);
  for (const GpuSeries& gpu : input.gpus) {
    if (BoardLimitW(gpu.latest())) f.gpus.push_back(gpu.key);
  }
  std::string sum = FormatNumber(b.sum_w, 0);
  std::string cap = FormatNumber(capacity_w, 0);
  std::string pct = FormatNumber(headroom * 100, 0);
  f.title =
      b.sum_w > capacity_w
          ? Text{fmt::format("The GPUs may draw {} W, more than the {} W power supply", sum, cap),
                 fmt::format("GPU 最多可消耗 {} W，超过了 {} W 的电源容量", sum, cap)}
          : Text{fmt::format("Less than {} % power supply headroom above the GPUs' {} W", pct, sum),
                 fmt::format("电源容量相对 GPU 的 {} W 余量不足 {} %", sum, pct)};
  f.explanation = Text{
      "At full load every GPU can draw up to its power limit at the same moment. A supply without "
      "headroom above that sum sags or trips when the load steps up, and GPUs then drop off the "
      "bus, often several within the same second, or the board asserts power-brake slowdown.",
      "满负载时每块 GPU "
      "都可能同时达到其功耗上限。电源容量相对这一总和没有余量时，负载骤增会导致电压跌落或电源保护跳"
      "闸，"
      "随后 GPU 从总线上掉落（往往在同一秒内掉多块），或主板触发功率制动降频。"};
  f.evidence.push_back(NumberEvidence(
      fmt::format("sum of power limits {} W over {} GPUs", sum, b.counted),
      fmt::format("{} 块 GPU 的功耗上限总和 {} W", b.counted, sum), b.sum_w, "watts"));
  f.evidence.push_back(NumberEvidence(
      fmt::format("power supply capacity {} W ([power] psu_capacity_w); {} % headroom needs {} W",
                  cap, pct, FormatNumber(needed_w, 0)),
      fmt::format("电源容量 {} W（`[power] psu_capacity_w`）；留 {} % 余量需要 {} W", cap, pct,
                  FormatNumber(needed_w, 0)),
      capacity_w, "watts"));
  AddActions(b, capacity_w, headroom, f);
}

}  // namespace power_psu_headroom_rule
}  // namespace

const Rule kPowerPsuHeadroomRule{
    "power.psu_headroom", "power",
    "Sum of GPU power limits against the configured power supply capacity (20 % headroom)",
    kNeedsGpuReadings, power_psu_headroom_rule::Evaluate};

}  // namespace gpudoctor
