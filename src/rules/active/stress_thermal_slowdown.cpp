// stress.thermal_slowdown: the SW or HW thermal slowdown reason under the
// burn, and how many seconds of full load it took to get there: seconds
// point to a cooling fault (fan, heatsink, airflow blocked), minutes to a
// cooling budget that a sustained job outgrows.
#include <fmt/format.h>

#include "core/clock_reasons.h"
#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_thermal_slowdown_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const std::uint64_t mask = ClockReasonBit("sw_thermal_slowdown") | ClockReasonBit("hw_thermal_slowdown");
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    auto found = active::FindReasonUnderLoad(input, gpu, mask);
    if (!found) continue;
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(gpu.pci_bus_id);
    std::string label = active::Label(gpu);
    std::string into = FormatNumber(found->first_into_s, 1);
    f.title = Text{fmt::format("{} slowed down for heat {} s into the load", label, into),
                   fmt::format("{} 加载 {} 秒后因过热降频", label, into)};
    f.evidence.push_back(active::Number(
        Text{fmt::format("thermal slowdown first {} s after the load began", into),
             fmt::format("负载开始 {} 秒后首次出现过热降频", into)},
        found->first_into_s, "seconds"));
    if (found->first->temperature_c) {
      f.evidence.push_back(active::Number(
          Text{fmt::format("temperature {} °C at that moment", *found->first->temperature_c),
               fmt::format("当时温度 {} °C", *found->first->temperature_c)},
          static_cast<double>(*found->first->temperature_c), "celsius"));
    }
    f.explanation = Text{
        "Under gpudoctor stress's full load the GPU reached its thermal limit and cut its clocks. "
        "Within seconds it points to a cooling fault (a fan, the heatsink, blocked airflow); after "
        "minutes, to cooling that a sustained job outgrows.",
        "在 `gpudoctor stress` 的满载下，GPU 达到温度上限并降低频率。几秒内出现指向散热故障（风扇、散热器、风道受阻）；"
        "几分钟后出现则说明散热能力不足以支撑持续负载。"};
    f.actions.push_back(Action{
        Text{"Check the fans, the airflow and the inlet temperature of the server.",
             "检查服务器的风扇、风道和进风温度。"},
        "sudo ipmitool sdr type Fan"});
    f.actions.push_back(Action{
        Text{"Compare with the other GPUs of the node: one GPU alone points to its heatsink or slot.",
             "与节点中其他 GPU 对比：仅该 GPU 出现则指向其散热器或插槽位置。"},
        "nvidia-smi --query-gpu=index,temperature.gpu,clocks_event_reasons.active --format=csv"});
  }
}

}  // namespace stress_thermal_slowdown_rule
}  // namespace

const Rule kStressThermalSlowdownRule{
    "stress.thermal_slowdown", "thermal",
    "Thermal slowdown reached under gpudoctor stress's burn, and after how many seconds",
    kNeedsActive, stress_thermal_slowdown_rule::Evaluate};

}  // namespace gpudoctor
