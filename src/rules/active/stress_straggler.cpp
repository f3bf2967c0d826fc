// stress.straggler: a GPU measurably slower than its peers under the same
// test: its burn rate, HBM or PCIe bandwidth more than 10 % below the median
// of the node's GPUs. In a synchronous job the slowest GPU sets the pace of
// all of them (DCGM has this check off by default). The PCIe measures of one
// GPU are one cause with stress.pcie_below_link and stress.pcie_half_duplex
// (Finding::causes).
#include <fmt/format.h>

#include <algorithm>

#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_straggler_rule {

constexpr double kBelowMedian = 0.10;

struct Measure {
  const char* en;
  const char* zh;
  const char* unit;
  std::optional<double> ActiveGpuResult::*field;
  bool pcie;  // a measure of the GPU's PCIe path (one cause with stress.pcie_*)
};

constexpr Measure kMeasures[] = {
    {"FP32 burn rate", "FP32 计算速率", "TFLOPS", &ActiveGpuResult::burn_tflops, false},
    {"HBM copy bandwidth", "显存拷贝带宽", "GB/s", &ActiveGpuResult::hbm_gbps, false},
    {"PCIe host-to-device bandwidth", "PCIe 主机到设备带宽", "GB/s", &ActiveGpuResult::pcie_h2d_gbps, true},
    {"PCIe device-to-host bandwidth", "PCIe 设备到主机带宽", "GB/s", &ActiveGpuResult::pcie_d2h_gbps, true},
    {"PCIe bidirectional bandwidth", "PCIe 双向带宽", "GB/s", &ActiveGpuResult::pcie_bidir_gbps, true},
};

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const Measure& m : kMeasures) {
    std::vector<double> values;
    // A GPU whose run ended in a CUDA error (lost, faulted) measured only
    // until then: it is stress.gpu_lost or stress.cuda_error, not a
    // straggler, and no peer's yardstick.
    for (const ActiveGpuResult& gpu : input.active->gpus) {
      if (gpu.*m.field && gpu.cuda_error.empty()) values.push_back(*(gpu.*m.field));
    }
    if (values.size() < 2) continue;
    double median = active::Median(values);
    if (median <= 0) continue;
    for (const ActiveGpuResult& gpu : input.active->gpus) {
      if (!(gpu.*m.field) || !gpu.cuda_error.empty()) continue;
      double v = *(gpu.*m.field);
      double below = 1 - v / median;
      if (below <= kBelowMedian) continue;
      Finding& f = out.Add(Severity::kWarning);
      f.gpus.push_back(gpu.pci_bus_id);
      if (m.pcie) f.causes = {active::PcieCause(gpu.pci_bus_id)};
      std::string label = active::Label(gpu);
      std::string pct = FormatNumber(100 * below, 0);
      f.title = Text{fmt::format("{} is a straggler: its {} is {} % below the node's median", label, m.en, pct),
                     fmt::format("{} 是慢节点：其{}比节点中位数低 {} %", label, m.zh, pct)};
      f.evidence.push_back(active::Number(
          Text{fmt::format("{} {} against a median of {} {} over {} GPUs", FormatNumber(v, 1), m.unit,
                           FormatNumber(median, 1), m.unit, values.size()),
               fmt::format("{} {}，{} 块 GPU 的中位数为 {} {}", FormatNumber(v, 1), m.unit, values.size(),
                           FormatNumber(median, 1), m.unit)},
          v, m.unit));
      f.explanation = Text{
          "Under the same test this GPU does measurably less than its peers. In a data-parallel job "
          "every step waits for the slowest GPU, so one straggler slows the whole node. Look for a "
          "clock limit (power, thermal), a lower power limit, or a degraded GPU.",
          "在相同测试下，该 GPU 的性能明显低于同节点其他 GPU。数据并行作业的每一步都要等待最慢的 GPU，"
          "因此一块慢 GPU 会拖慢整个节点。请检查频率限制（功耗、温度）、较低的功率上限或 GPU 性能退化。"};
      f.actions.push_back(Action{
          Text{"Compare its clocks, power limit and clock event reasons with the other GPUs during load.",
               "在负载下将其频率、功率上限和降频原因与其他 GPU 对比。"},
          "nvidia-smi -q -d CLOCK,POWER,PERFORMANCE"});
      f.actions.push_back(Action{
          Text{"Run the test again on this GPU alone; if it stays slow, drain and RMA it.",
               "单独对该 GPU 再次测试；若仍然偏慢，将其下线并返修。"},
          fmt::format("sudo gpudoctor stress --gpu {}", gpu.index)});
    }
  }
}

}  // namespace stress_straggler_rule
}  // namespace

const Rule kStressStragglerRule{
    "stress.straggler", "performance",
    "A GPU's burn rate, HBM or PCIe bandwidth more than 10 % below the node's median under gpudoctor stress",
    kNeedsActive, stress_straggler_rule::Evaluate};

}  // namespace gpudoctor
