// stress.pcie_half_duplex: host-to-device and device-to-host copies run at
// the same time (two streams) move less than 1.1 x what the faster direction
// moves alone (no faster, within measuring noise), the two directions alone
// being alike (the slower at least half the faster). PCIe is full duplex: on
// a healthy path the two directions overlap and together reach well above
// one direction (1.5-1.9 x is usual; host memory and the root complex take
// some). No gain at all means the path serialises the directions: a
// retimer, riser or switch running degraded, the IOMMU, or a host bridge
// that queues DMA one way at a time.
#include <fmt/format.h>

#include <algorithm>

#include "knowledge/pcie_link_rates.h"
#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_pcie_half_duplex_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    if (!gpu.pcie_bidir_gbps || !gpu.pcie_h2d_gbps || !gpu.pcie_d2h_gbps) continue;
    const double one_way = std::max(*gpu.pcie_h2d_gbps, *gpu.pcie_d2h_gbps);
    const double other_way = std::min(*gpu.pcie_h2d_gbps, *gpu.pcie_d2h_gbps);
    if (one_way <= 0 || *gpu.pcie_bidir_gbps >= kPcieDuplexMinGain * one_way) continue;
    // One direction far slower than the other is slow one way
    // (stress.pcie_below_link): the little its overlap could add is not told
    // from noise, so the path is not shown to serialise the directions.
    if (other_way < kPcieDuplexMinBalance * one_way) continue;
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(gpu.pci_bus_id);
    f.causes = {active::PcieCause(gpu.pci_bus_id)};
    const std::string label = active::Label(gpu);
    const std::string gain = FormatNumber(*gpu.pcie_bidir_gbps / one_way, 2);
    f.title = Text{fmt::format("{}: PCIe copies in both directions at once reach only {} x one direction", label, gain),
                   fmt::format("{}：PCIe 双向同时拷贝仅为单向的 {} 倍", label, gain)};
    f.evidence.push_back(active::Number(
        Text{fmt::format("both directions {} GB/s together; host to device {} GB/s, device to host {} GB/s alone",
                         FormatNumber(*gpu.pcie_bidir_gbps, 1), FormatNumber(*gpu.pcie_h2d_gbps, 1),
                         FormatNumber(*gpu.pcie_d2h_gbps, 1)),
             fmt::format("双向合计 {} GB/s；单独时主机到设备 {} GB/s，设备到主机 {} GB/s",
                         FormatNumber(*gpu.pcie_bidir_gbps, 1), FormatNumber(*gpu.pcie_h2d_gbps, 1),
                         FormatNumber(*gpu.pcie_d2h_gbps, 1))},
        *gpu.pcie_bidir_gbps, "GB/s"));
    f.evidence.push_back(active::Number(
        Text{fmt::format("a full-duplex path gives well above {} x one direction", FormatNumber(kPcieDuplexMinGain, 1)),
             fmt::format("全双工通路应明显高于单向的 {} 倍", FormatNumber(kPcieDuplexMinGain, 1))},
        kPcieDuplexMinGain, "x"));
    f.explanation = Text{
        "PCIe carries both directions at once, so copies to and from the GPU at the same time should "
        "overlap. When together they move no more than one direction alone, something on the path takes "
        "the directions in turn: a degraded retimer, riser or PCIe switch, the IOMMU, or the host bridge. "
        "Training that overlaps uploads and downloads (data loading beside checkpoint or gradient "
        "offload) then runs at half the expected rate.",
        "PCIe 可以同时双向传输，因此同时进行的上行和下行拷贝应当重叠。若两者合计不超过单向带宽，说明通路上有部件"
        "让两个方向轮流传输：降级的重定时器、转接卡或 PCIe 交换芯片、IOMMU 或主机桥。同时上传和下载的训练"
        "（数据加载与检查点或梯度卸载并行）届时只能达到预期的一半。"};
    f.actions.push_back(Action{
        Text{"Read the link's state and the slot's AER errors.", "查看链路状态和该插槽的 AER 错误。"},
        fmt::format("sudo lspci -vvv -s {} | grep -E 'LnkSta|CESta|UESta'", gpu.pci_bus_id)});
    f.actions.push_back(Action{
        Text{"Compare with the node's other GPUs and check which switch and socket each GPU hangs off.",
             "与节点中其他 GPU 对比，并检查每块 GPU 所在的交换芯片和 CPU 插槽。"},
        "nvidia-smi topo -m"});
  }
}

}  // namespace stress_pcie_half_duplex_rule
}  // namespace

const Rule kStressPcieHalfDuplexRule{
    "stress.pcie_half_duplex", "pcie",
    "PCIe copies in both directions at once under gpudoctor stress below 1.1 x the faster direction alone "
    "(directions alone within 2 x of each other)",
    kNeedsActive, stress_pcie_half_duplex_rule::Evaluate};

}  // namespace gpudoctor
