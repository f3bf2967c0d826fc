// pcie.link_degraded: a GPU's PCIe link trained below what it can do: fewer
// lanes (x8 of x16 halves the bandwidth; often a bad seat or riser), or a
// lower generation while the GPU is busy. GPUs lower the generation at idle
// to save power, so the generation is judged only under load.
// From NVML readings, and from sysfs for GPUs NVML does not show.
#include <fmt/format.h>

#include <algorithm>

#include "rules/system/group.h"
#include "rules/system/system_util.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace pcie_link_degraded_rule {

struct LinkJudgement {
  std::size_t width_readings = 0, width_low = 0;
  std::size_t busy_readings = 0, gen_low_busy = 0;
  std::size_t gen_low_idle = 0;
  std::int64_t width = 0, width_max = 0, gen = 0, gen_max = 0;  // of the last low reading
  std::int64_t width_lowest = 0, width_highest = 0;  // current width over the window
};

LinkJudgement JudgeSeries(const DiagnosisInput& input, const GpuSeries& gpu) {
  LinkJudgement j;
  const double busy_from = input.config.thresholds.utilization_wasted_below_percent;
  for (const GpuStatus& g : gpu.readings) {
    if (g.pcie_link_width_current && g.pcie_link_width_max) {
      ++j.width_readings;
      std::int64_t w = *g.pcie_link_width_current;
      j.width_lowest = j.width_readings == 1 ? w : std::min(j.width_lowest, w);
      j.width_highest = j.width_readings == 1 ? w : std::max(j.width_highest, w);
      if (*g.pcie_link_width_current < *g.pcie_link_width_max) {
        ++j.width_low;
        j.width = *g.pcie_link_width_current;
        j.width_max = *g.pcie_link_width_max;
      }
    }
    if (!g.pcie_link_gen_current || !g.pcie_link_gen_max) continue;
    bool low = *g.pcie_link_gen_current < *g.pcie_link_gen_max;
    bool busy = g.utilization_gpu_percent && *g.utilization_gpu_percent >= busy_from;
    if (busy) ++j.busy_readings;
    if (low && busy) ++j.gen_low_busy;
    if (low && !busy) ++j.gen_low_idle;
    if (low) {
      j.gen = *g.pcie_link_gen_current;
      j.gen_max = *g.pcie_link_gen_max;
    }
  }
  return j;
}

bool Sustained(std::size_t part, std::size_t whole, double fraction) {
  return whole > 0 && static_cast<double>(part) >= fraction * static_cast<double>(whole);
}

void AddCommon(const std::string& bus_id, Finding& f) {
  f.gpus.push_back(bus_id);
  f.explanation = Text{
      "The link between the GPU and the host runs below what both ends support, so copies to "
      "and from the GPU are slower (x8 instead of x16 halves the bandwidth). Usual causes: a GPU "
      "or riser not fully seated, a damaged slot or riser, or a slot set to fewer lanes or a "
      "lower generation in the BIOS. A link that trains down is also a warning sign before a "
      "GPU drops off the bus.",
      "GPU 与主机之间的 PCIe 链路低于两端都支持的规格，导致与 GPU 之间的数据拷贝变慢（x8 代替 x16 "
      "时带宽减半）。"
      "常见原因：GPU 或转接卡没有插到位、插槽或转接卡损坏，或 BIOS "
      "中把插槽设为更少的通道或更低的代数。"
      "链路降级也是 GPU 掉卡之前的预警信号。"};
  f.actions.push_back(
      Action{Text{"Compare the link capability with its status.",
                  "对比链路能力（LnkCap）与当前状态（LnkSta）。"},
             fmt::format("sudo lspci -vv -s {} | grep -E 'LnkCap|LnkSta'", bus_id)});
  f.actions.push_back(
      Action{Text{"Reseat the GPU and its riser, check the BIOS slot settings (link speed, "
                  "bifurcation); on a cloud instance, report the host to the provider.",
                  "重新插拔 GPU 及其转接卡，检查 BIOS "
                  "中的插槽设置（链路速率、通道拆分）；云服务器请向云厂商报告该宿主机。"},
             ""});
}

void ReportSeries(const DiagnosisInput& input, const GpuSeries& gpu, RuleOutput& out) {
  LinkJudgement j = JudgeSeries(input, gpu);
  const double fraction = input.config.sustained_fraction;
  bool width = j.width_low > 0 && Sustained(j.width_low, j.width_readings, fraction);
  bool gen = j.gen_low_busy > 0 && Sustained(j.gen_low_busy, j.busy_readings, fraction);
  std::string label = GpuLabel(gpu.latest());
  if (!width && !gen) {
    if (j.gen_low_idle > 0 && j.busy_readings == 0) {
      out.NotCheckedBecause(Text{
          fmt::format("{}: PCIe generation below its maximum, but the GPU was idle (it lowers the "
                      "generation to save power), so it could not be judged",
                      label),
          fmt::format(
              "{}：PCIe 代数低于最大值，但 GPU 处于空闲状态（空闲时会降低代数以节能），无法判断",
              label)});
    }
    return;
  }
  // A steady x8 of x16 is often the slot's own width (cloud instances, two
  // GPUs sharing 16 lanes): NVML's maximum is the GPU's, not the slot's. It
  // is a warning when the width fell during the window, when it is a
  // quarter or less of the maximum, or when the generation is low under load.
  bool width_fell = j.width_lowest < j.width_highest;
  bool width_severe = width && j.width * 4 <= j.width_max;
  bool warn = gen || width_fell || width_severe;
  Finding& f = out.Add(warn ? Severity::kWarning : Severity::kInfo);
  f.title = Text{fmt::format("{} PCIe link runs below its capability", label),
                 fmt::format("{} 的 PCIe 链路低于其能力运行", label)};
  if (width) {
    f.evidence.push_back(
        NumberEvidence(fmt::format("link width x{} of x{} in {} of {} readings (NVML)", j.width,
                                   j.width_max, j.width_low, j.width_readings),
                       fmt::format("{} 次读数中有 {} 次链路宽度为 x{}，最大 x{}（NVML）",
                                   j.width_readings, j.width_low, j.width, j.width_max),
                       static_cast<double>(j.width), "lanes"));
  }
  if (gen) {
    f.evidence.push_back(
        NumberEvidence(fmt::format("link Gen{} of Gen{} in {} of {} busy readings (NVML)", j.gen,
                                   j.gen_max, j.gen_low_busy, j.busy_readings),
                       fmt::format("{} 次繁忙读数中有 {} 次链路为 Gen{}，最大 Gen{}（NVML）",
                                   j.busy_readings, j.gen_low_busy, j.gen, j.gen_max),
                       static_cast<double>(j.gen), "generation"));
  }
  AddCommon(gpu.key, f);
  if (!warn) {
    f.explanation.en +=
        " The width stayed the same over the window, so the slot may simply provide fewer lanes "
        "than the GPU can use (common on cloud instances and on boards where two GPUs share 16 "
        "lanes): compare LnkSta with the slot's LnkCap before reseating anything.";
    f.explanation.zh +=
        "窗口内链路宽度没有变化，可能只是插槽本身提供的通道少于 GPU 能用的数量（云服务器以及两块 "
        "GPU 共用 16 条通道的主板上很常见）：在重新插拔之前，先对比插槽的 LnkCap 与 LnkSta。";
  }
}

// A GPU only sysfs shows (NVML failed or lost it): no utilisation, so only
// the width is judged.
void ReportSysfs(const PciDevice& d, RuleOutput& out) {
  if (!d.answers || !d.link_width_current || !d.link_width_max) return;
  if (*d.link_width_current >= *d.link_width_max) return;
  Finding& f = out.Add(Severity::kWarning);
  f.title = Text{fmt::format("GPU {} PCIe link runs below its capability", d.bus_id),
                 fmt::format("GPU {} 的 PCIe 链路低于其能力运行", d.bus_id)};
  f.evidence.push_back(NumberEvidence(
      fmt::format("link width x{} of x{} (sysfs)", *d.link_width_current, *d.link_width_max),
      fmt::format("链路宽度 x{}，最大 x{}（sysfs）", *d.link_width_current, *d.link_width_max),
      static_cast<double>(*d.link_width_current), "lanes"));
  AddCommon(d.bus_id, f);
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  if (input.gpus.empty() && !input.pci) {
    out.NotCheckedBecause(Text{"neither GPU readings nor the PCI device list are available",
                               "既没有 GPU 读数，也没有 PCI 设备列表"});
    return;
  }
  for (const GpuSeries& gpu : input.gpus) ReportSeries(input, gpu, out);
  if (!input.pci) return;
  for (const PciDevice& d : input.pci->gpus) {
    if (FindGpu(input, d.bus_id) == nullptr) ReportSysfs(d, out);
  }
}

}  // namespace pcie_link_degraded_rule
}  // namespace

const Rule kPcieLinkDegradedRule{
    "pcie.link_degraded", "pcie",
    "PCIe link narrower than its maximum, or at a lower generation while the GPU is busy",
    kNeedsNothing, pcie_link_degraded_rule::Evaluate};

}  // namespace gpudoctor
