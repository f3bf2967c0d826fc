// pcie.replay: the GPU's PCIe link retransmits packets (replays), the
// telltale of a poor slot, riser or cable contact before a GPU drops off the
// bus. The counter is cumulative since the driver loaded or the GPU was
// reset, so what matters is how fast it grows: NVIDIA's resource manager
// recommends at most 8 replays per minute (the limit DCGM's PCIe health
// watch applies). A total from one reading has no time base: the 8-GPU H100
// capture in shared/fixtures (text/gpud-h100x8-535.183.01-q-replays.txt)
// shows 58 to 120 on every GPU of a working node, i.e. well under one replay
// an hour over days of uptime. A single total is therefore only mentioned
// when it is in the thousands.
#include <fmt/format.h>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace pcie_replay_rule {

constexpr double kReplaysPerMinuteLimit = 8;
constexpr double kStaticTotalWorthTelling = 1000;

void AddActions(Finding& f, const GpuStatus& g) {
  f.actions.push_back(Action{
      Text{"Check the link state and the correctable-error status of the slot.",
           "检查该插槽的链路状态和可纠正错误状态。"},
      fmt::format("sudo lspci -vvv -s {} | grep -i -E 'LnkSta|CESta'", g.pci_bus_id)});
  f.actions.push_back(Action{
      Text{"Look for PCIe AER errors of this device in the kernel log.",
           "在内核日志中查找该设备的 PCIe AER 错误。"},
      "sudo dmesg -T | grep -i -E 'aer|pcie bus error'"});
  f.actions.push_back(Action{
      Text{"Reseat the GPU and its riser or cable, or move it to another slot; on a cloud "
           "instance report the host to the provider.",
           "重新插拔 GPU 及其转接卡或线缆，或换一个插槽；云服务器上请向云厂商报告该宿主机。"},
      ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    auto growth = GrowthOf(gpu, [](const GpuStatus& s) { return AsDouble(s.pcie_replay_count); });
    double total = static_cast<double>(g.pcie_replay_count.value_or(0));
    bool rising = growth && growth->increase > 0;
    if (!rising && total < kStaticTotalWorthTelling) continue;
    double per_minute = rising ? PerMinute(*growth) : 0;
    Finding& f = out.Add(per_minute > kReplaysPerMinuteLimit ? Severity::kWarning : Severity::kInfo);
    f.gpus.push_back(gpu.key);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} retransmits on its PCIe link (replays)", label),
                   fmt::format("{} 的 PCIe 链路存在重传（replay）", label)};
    f.explanation = Text{
        "A replay is a PCIe packet sent again because it arrived damaged. A few are normal; a "
        "steady stream (NVIDIA recommends at most 8 per minute) slows transfers and often comes "
        "before the GPU falls off the bus. The usual cause is the slot, riser or cable contact.",
        "replay 指因到达时已损坏而被重新发送的 PCIe 数据包。偶尔几次属于正常；持续不断地出现"
        "（NVIDIA 建议每分钟不超过 8 次）会拖慢传输，且常在 GPU 从总线掉线之前出现。"
        "通常原因是插槽、转接卡或线缆接触不良。"};
    if (rising) {
      std::string rise = FormatNumber(growth->increase, 0);
      std::string rate = FormatNumber(per_minute);
      f.evidence.push_back(Measured(
          Text{fmt::format("PCIe replays rose by {} in the window ({} per minute; limit 8)", rise, rate),
               fmt::format("窗口内 PCIe 重传增加了 {} 次（每分钟 {} 次；上限 8 次）", rise, rate)},
          per_minute, "per_minute"));
    }
    f.evidence.push_back(Measured(
        Text{fmt::format("{} PCIe replays since the driver loaded or the GPU was reset", FormatNumber(total, 0)),
             fmt::format("自驱动加载或 GPU 重置以来 PCIe 重传共 {} 次", FormatNumber(total, 0))},
        total, "count"));
    AddActions(f, g);
  }
}

}  // namespace pcie_replay_rule
}  // namespace

const Rule kPcieReplayRule{"pcie.replay", "pcie",
                           "PCIe replay counter rising (slot, riser or cable contact)",
                           kNeedsGpuReadings, pcie_replay_rule::Evaluate};

}  // namespace gpudoctor
