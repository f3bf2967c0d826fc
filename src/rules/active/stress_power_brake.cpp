// stress.power_brake: the HW power brake or HW slowdown clock reason under
// the burn. Both are signals from outside the GPU's own power management
// (the board or the system's power delivery, or an over-temperature or
// over-current input); reached under a controlled load they say the node's
// power cannot carry its GPUs at full power.
#include <fmt/format.h>

#include "core/clock_reasons.h"
#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_power_brake_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const std::uint64_t brake = ClockReasonBit("hw_power_brake_slowdown");
  const std::uint64_t hw = ClockReasonBit("hw_slowdown");
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    auto found = active::FindReasonUnderLoad(input, gpu, brake | hw);
    if (!found) continue;
    bool is_brake = (*found->first->clock_event_reasons_mask & brake) != 0;
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(gpu.pci_bus_id);
    std::string label = active::Label(gpu);
    std::string into = FormatNumber(found->first_into_s, 1);
    f.title = is_brake ? Text{fmt::format("{} hit the HW power brake {} s into the load", label, into),
                              fmt::format("{} 加载 {} 秒后触发硬件功率刹车", label, into)}
                       : Text{fmt::format("{} hit HW slowdown {} s into the load", label, into),
                              fmt::format("{} 加载 {} 秒后触发硬件降频（HW Slowdown）", label, into)};
    double share = 100.0 * static_cast<double>(found->hits) / static_cast<double>(found->load_samples);
    f.evidence.push_back(active::Number(
        Text{fmt::format("in {} of {} samples under load ({} %)", found->hits, found->load_samples,
                         FormatNumber(share, 0)),
             fmt::format("负载下 {} 个采样中有 {} 个（{} %）", found->load_samples, found->hits,
                         FormatNumber(share, 0))},
        share, "percent"));
    if (found->first->power_draw_w) {
      std::string limit = found->first->power_limit_w ? FormatNumber(*found->first->power_limit_w, 0) : "?";
      f.evidence.push_back(active::Number(
          Text{fmt::format("drawing {} W of its {} W limit when it began",
                           FormatNumber(*found->first->power_draw_w, 0), limit),
               fmt::format("开始时功耗 {} W（上限 {} W）", FormatNumber(*found->first->power_draw_w, 0), limit)},
          *found->first->power_draw_w, "watts"));
    }
    f.explanation = Text{
        "HW power brake and HW slowdown are asserted from outside the GPU when the board or the "
        "system's power delivery is over budget (or an over-current or over-temperature input "
        "trips); the GPU then cuts its clocks hard. Reached under a controlled full load, it says "
        "the node cannot power this GPU at full speed.",
        "硬件功率刹车和硬件降频由 GPU 外部触发：板卡或系统供电超出预算（或过流、过温输入触发）时，GPU 会大幅降频。"
        "在受控满载下出现，说明节点无法以全速为该 GPU 供电。"};
    f.actions.push_back(Action{
        Text{"Check the power supplies and the BMC event log for power-budget events.",
             "检查电源状态，并在 BMC 事件日志中查看功率预算事件。"},
        "sudo ipmitool sel elist"});
    f.actions.push_back(Action{
        Text{"Run the burn again with the GPUs started one after another to see whether it depends on "
             "how many run together (the shared supply) or follows this GPU.",
             "以逐个启动的方式再次运行压力测试，判断问题取决于同时运行的 GPU 数量（共用电源）还是跟随该 GPU。"},
        "sudo gpudoctor stress --tests power --start staggered"});
  }
}

}  // namespace stress_power_brake_rule
}  // namespace

const Rule kStressPowerBrakeRule{"stress.power_brake", "power",
                                 "HW power brake or HW slowdown reached under gpudoctor stress's burn",
                                 kNeedsActive, stress_power_brake_rule::Evaluate};

}  // namespace gpudoctor
