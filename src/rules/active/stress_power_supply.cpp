// stress.power_supply: two or more GPUs lost within one second of each other
// while gpudoctor stress loaded them (the source document's case: "some GPUs
// suddenly go offline when a heavy job starts"). GPUs do not fail together;
// what they share is the power supply, and the burn's load step is what a
// supply too small or failing cannot hold.
#include <fmt/format.h>

#include <algorithm>

#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_power_supply_rule {

constexpr double kTogetherS = 1.0;

struct Loss {
  const ActiveGpuResult* gpu = nullptr;
  double at_s = 0;
};

// The GPU's draw in its last reading before the loss, when read.
std::optional<double> DrawBefore(const DiagnosisInput& input, const ActiveGpuResult& gpu) {
  const GpuSeries* series = active::SeriesOf(input, gpu);
  if (series == nullptr) return std::nullopt;
  std::optional<double> last;
  for (const GpuStatus& r : series->readings) {
    if (r.state != GpuState::kOk) break;
    if (r.power_draw_w) last = r.power_draw_w;
  }
  return last;
}

void AddActions(Finding& f) {
  f.actions.push_back(Action{
      Text{"Compare the PSU capacity with all GPUs' board power plus the CPUs and the rest, with "
           "at least 20 % headroom; check that every redundant PSU is present and healthy.",
           "核对电源容量是否不低于所有 GPU 板卡功耗、CPU 及其他部件之和并留出至少 20 % 余量；检查冗余电源是否全部在位且正常。"},
      "sudo ipmitool sdr type 'Power Supply'"});
  f.actions.push_back(Action{
      Text{"Read the BMC's event log for PSU faults and power-budget events at the time of the loss.",
           "在 BMC 事件日志中查看掉线时刻的电源故障和功率预算事件。"},
      "sudo ipmitool sel elist"});
  f.actions.push_back(Action{
      Text{"Run the burn again with the GPUs started one after another: if each GPU holds alone "
           "but they drop once enough run together, the supply is too weak.",
           "以逐个启动的方式再次运行压力测试：若每块 GPU 单独都正常，而同时运行到一定数量就掉线，说明电源不足。"},
      "sudo gpudoctor stress --tests power --start staggered --duration 120s"});
  f.actions.push_back(Action{
      Text{"Until it is fixed, a lower power limit on every GPU can keep the node up; on a cloud "
           "instance report the host. Do not replace the GPUs first.",
           "修复前，降低每块 GPU 的功率上限可维持节点运行；云服务器请报告宿主机。不要先更换 GPU。"},
      "sudo nvidia-smi -pl <W>"});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  std::vector<Loss> losses;
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    std::optional<double> at = active::LostAtS(input, gpu);
    for (const ActiveXid& x : gpu.xids) {
      if (x.xid == 79 && (!at || x.at_s < *at)) at = x.at_s;
    }
    if (at) losses.push_back(Loss{&gpu, *at});
  }
  std::sort(losses.begin(), losses.end(), [](const Loss& a, const Loss& b) { return a.at_s < b.at_s; });
  for (std::size_t i = 0; i < losses.size();) {
    std::size_t j = i;
    while (j < losses.size() && losses[j].at_s - losses[i].at_s <= kTogetherS) ++j;
    if (j - i < 2) {
      i = j;
      continue;
    }
    Finding& f = out.Add(Severity::kCritical);
    std::string span = FormatNumber(losses[j - 1].at_s - losses[i].at_s, 1);
    f.title = Text{fmt::format("{} GPUs lost within {} s under full load: suspect the power supply", j - i, span),
                   fmt::format("{} 块 GPU 在满载下 {} 秒内相继掉线：怀疑电源供电问题", j - i, span)};
    double total_w = 0;
    for (std::size_t k = i; k < j; ++k) {
      const ActiveGpuResult& gpu = *losses[k].gpu;
      f.gpus.push_back(gpu.pci_bus_id);
      auto draw = DrawBefore(input, gpu);
      total_w += draw.value_or(0);
      std::string w = draw ? FormatNumber(*draw, 0) + " W" : "?";
      f.evidence.push_back(active::Number(
          Text{fmt::format("{} lost {} s into the run, drawing {} just before", active::Label(gpu),
                           FormatNumber(losses[k].at_s, 1), w),
               fmt::format("{} 在运行第 {} 秒掉线，掉线前功耗 {}", active::Label(gpu),
                           FormatNumber(losses[k].at_s, 1), w)},
          losses[k].at_s, "seconds"));
    }
    if (total_w > 0) {
      std::string psu = input.config.psu_capacity_w ? FormatNumber(*input.config.psu_capacity_w, 0) + " W" : "";
      f.evidence.push_back(active::Number(
          Text{fmt::format("together they drew {} W{}", FormatNumber(total_w, 0),
                           psu.empty() ? "" : "; configured PSU capacity " + psu),
               fmt::format("合计功耗 {} W{}", FormatNumber(total_w, 0), psu.empty() ? "" : "；配置的电源容量 " + psu)},
          total_w, "watts"));
    }
    f.explanation = Text{
        "Several GPUs that drop within the same second under a load step rarely all failed at once: "
        "what they share is the power supply. Typical causes are a PSU too small for the step, a failed "
        "redundant PSU, a loose or shared power cable, or several GPUs on one rail.",
        "多块 GPU 在负载突增的同一秒内掉线，很少是它们同时损坏：它们共用的是电源。常见原因是电源容量不足以承受负载突增、"
        "冗余电源故障、供电线缆松动或共用，或多块 GPU 挂在同一供电路上。"};
    AddActions(f);
    i = j;
  }
}

}  // namespace stress_power_supply_rule
}  // namespace

const Rule kStressPowerSupplyRule{
    "stress.power_supply", "power",
    "Two or more GPUs lost within one second under gpudoctor stress: the power supply", kNeedsActive,
    stress_power_supply_rule::Evaluate};

}  // namespace gpudoctor
