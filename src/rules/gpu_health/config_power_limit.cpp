// config.power_limit: the GPU's power limit is below the board's default.
// Someone lowered it (`nvidia-smi -pl`), or the system's power budget
// (enforced limit below the software limit) holds it down. It costs speed
// only when the GPU has work and reaches the limit, i.e. when the SW power
// cap reason shows while it is busy: then a warning, else worth knowing.
#include <fmt/format.h>

#include <cmath>

#include "core/clock_reasons.h"
#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace config_power_limit_rule {

// Enforced limits differ from the requested one by a few watts of rounding;
// below 95 % of the default is a deliberate (or imposed) cut.
constexpr double kBelowDefaultRatio = 0.95;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    std::optional<double> limit = g.power_enforced_limit_w ? g.power_enforced_limit_w : g.power_limit_w;
    if (!limit || !g.power_default_limit_w || *g.power_default_limit_w <= 0) continue;
    double default_w = *g.power_default_limit_w;
    if (*limit >= default_w * kBelowDefaultRatio) continue;
    // The software limit at the default while the enforced one is lower:
    // the cut comes from the platform, not from nvidia-smi -pl.
    bool set_by_user = g.power_limit_w && *g.power_limit_w < default_w * kBelowDefaultRatio;
    auto cap_share = ClockReasonShare(gpu, ClockReasonBit("sw_power_cap"));
    Finding& f = out.Add(Severity::kInfo);
    f.gpus.push_back(gpu.key);
    std::string label = GpuLabel(g);
    std::string limit_text = FormatNumber(*limit, 0);
    std::string default_text = FormatNumber(default_w, 0);
    f.title = Text{fmt::format("{} power limit {} W is below its default {} W", label, limit_text, default_text),
                   fmt::format("{} 的功耗上限 {} W 低于默认值 {} W", label, limit_text, default_text)};
    f.explanation = Text{
        "A lower power limit makes the GPU cut its clocks as soon as it draws that much, so busy "
        "jobs run slower (SW power cap). It is often left over from a test or set to fit a "
        "power budget.",
        "功耗上限调低后，GPU 一旦达到该功耗就会降低频率，繁忙的任务随之变慢（SW Power Cap）。"
        "这通常是测试时遗留的设置，或为适应供电预算而设。"};
    f.evidence.push_back(Measured(
        Text{fmt::format("power limit {} W (software {} W), default {} W", limit_text,
                         FormatNumber(g.power_limit_w.value_or(*limit), 0), default_text),
             fmt::format("功耗上限 {} W（软件设置 {} W），默认 {} W", limit_text,
                         FormatNumber(g.power_limit_w.value_or(*limit), 0), default_text)},
        *limit, "watts"));
    if (cap_share) {
      std::string pct = FormatNumber(*cap_share * 100, 0);
      f.evidence.push_back(Measured(
          Text{fmt::format("SW power cap active in {} % of readings", pct),
               fmt::format("{} % 的读数中 SW Power Cap 处于激活状态", pct)},
          *cap_share * 100, "percent"));
    }
    if (set_by_user) {
      f.actions.push_back(Action{
          Text{fmt::format("Restore the default limit ({} W) unless it was lowered on purpose "
                           "(e.g. to fit the power supply).", default_text),
               fmt::format("除非是有意调低（例如为适应电源容量），否则恢复默认上限（{} W）。", default_text)},
          fmt::format("sudo nvidia-smi -i {} -pl {}", g.index, default_text)});
    } else {
      f.actions.push_back(Action{
          Text{"The cut comes from the system's power budget (BMC or chassis power capping): "
               "check the BMC power settings, or ask the cloud provider.",
               "该限制来自系统的供电预算（BMC 或机箱功耗封顶）：请检查 BMC 功耗设置，或咨询云厂商。"},
          ""});
    }
    f.actions.push_back(Action{Text{"Check the power limits and readings.", "查看功耗上限与读数。"},
                               fmt::format("nvidia-smi -q -i {} -d POWER", g.index)});
  }
}

}  // namespace config_power_limit_rule
}  // namespace

const Rule kConfigPowerLimitRule{"config.power_limit", "config",
                                 "Power limit below the board's default (the slowdown it causes is power.cap)",
                                 kNeedsGpuReadings, config_power_limit_rule::Evaluate};

}  // namespace gpudoctor
