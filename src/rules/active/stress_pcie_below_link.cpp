// stress.pcie_below_link: pinned host-to-device or device-to-host copies
// below 60 % of what the PCIe link NVML reports during the test should carry
// (generation x width, knowledge/pcie_link_rates.h; a healthy link gives
// about 80 %). A link trained below its maximum generation or width is named
// as the likely cause; at full width and speed, look at the slot, the riser
// or the root complex (a switch shared with other GPUs or NICs).
#include <fmt/format.h>

#include <algorithm>

#include "knowledge/pcie_link_rates.h"
#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_pcie_below_link_rule {

constexpr double kMinShareOfLink = kPcieFlagBelowShare;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    if (!gpu.pcie_h2d_gbps && !gpu.pcie_d2h_gbps) continue;
    if (!gpu.pcie_link_gen || !gpu.pcie_link_width) continue;
    auto lane = PcieLaneGbps(static_cast<long>(*gpu.pcie_link_gen));
    if (!lane) continue;
    const std::int64_t gen = *gpu.pcie_link_gen, width = *gpu.pcie_link_width;
    const std::int64_t max_gen = gpu.pcie_link_gen_max.value_or(0), max_width = gpu.pcie_link_width_max.value_or(0);
    double theoretical = *lane * static_cast<double>(width);
    double slowest = std::min(gpu.pcie_h2d_gbps.value_or(1e18), gpu.pcie_d2h_gbps.value_or(1e18));
    if (slowest >= kMinShareOfLink * theoretical) continue;
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(gpu.pci_bus_id);
    f.causes = {active::PcieCause(gpu.pci_bus_id)};
    std::string label = active::Label(gpu);
    std::string pct = FormatNumber(100 * slowest / theoretical, 0);
    std::string link_text = fmt::format("Gen{} x{}", gen, width);
    f.title = Text{fmt::format("{}: PCIe copies reach only {} % of its {} link", label, pct, link_text),
                   fmt::format("{}：PCIe 拷贝仅达到其 {} 链路的 {} %", label, link_text, pct)};
    // Slow one way only: the other direction runs as a healthy link does.
    const bool h2d_slow = gpu.pcie_h2d_gbps && *gpu.pcie_h2d_gbps < kMinShareOfLink * theoretical;
    const bool d2h_slow = gpu.pcie_d2h_gbps && *gpu.pcie_d2h_gbps < kMinShareOfLink * theoretical;
    if (gpu.pcie_h2d_gbps && gpu.pcie_d2h_gbps && h2d_slow != d2h_slow) {
      const double other = h2d_slow ? *gpu.pcie_d2h_gbps : *gpu.pcie_h2d_gbps;
      const std::string other_pct = FormatNumber(100 * other / theoretical, 0);
      f.title = Text{fmt::format("{}: PCIe {} copies reach only {} % of its {} link ({} {} %): slow one way",
                                 label, h2d_slow ? "host-to-device" : "device-to-host", pct, link_text,
                                 h2d_slow ? "device to host" : "host to device", other_pct),
                     fmt::format("{}：PCIe {}拷贝仅达到其 {} 链路的 {} %（{} {} %）：单向偏慢", label,
                                 h2d_slow ? "主机到设备" : "设备到主机", link_text, pct,
                                 h2d_slow ? "设备到主机" : "主机到设备", other_pct)};
    }
    f.evidence.push_back(active::Number(
        Text{fmt::format("host to device {} GB/s, device to host {} GB/s", FormatNumber(gpu.pcie_h2d_gbps.value_or(0), 1),
                         FormatNumber(gpu.pcie_d2h_gbps.value_or(0), 1)),
             fmt::format("主机到设备 {} GB/s，设备到主机 {} GB/s", FormatNumber(gpu.pcie_h2d_gbps.value_or(0), 1),
                         FormatNumber(gpu.pcie_d2h_gbps.value_or(0), 1))},
        slowest, "GB/s"));
    f.evidence.push_back(active::Number(
        Text{fmt::format("{} carries {} GB/s a direction in theory; a healthy link gives about {} %",
                         link_text, FormatNumber(theoretical, 1), FormatNumber(100 * kPcieAchievableShare, 0)),
             fmt::format("{} 理论单向带宽 {} GB/s；健康链路通常可达约 {} %", link_text, FormatNumber(theoretical, 1),
                         FormatNumber(100 * kPcieAchievableShare, 0))},
        theoretical, "GB/s"));
    bool degraded = (max_gen > 0 && gen < max_gen) ||
                    (max_width > 0 && width < max_width);
    if (degraded) {
      f.evidence.push_back(active::Number(
          Text{fmt::format("the link trained at {} of Gen{} x{} under load", link_text, max_gen, max_width),
               fmt::format("负载下链路仅协商到 {}（最高 Gen{} x{}）", link_text, max_gen, max_width)},
          static_cast<double>(gen), "generation"));
    }
    f.explanation = Text{
        "Large copies from pinned host memory run as fast as the PCIe path allows. Far below what the "
        "link should carry, the path is slower than the link: a shared PCIe switch, a riser or "
        "retimer, the IOMMU, or a CPU socket away from the GPU; a link trained below its maximum "
        "speed or width is the first suspect.",
        "从锁页主机内存进行的大块拷贝会以 PCIe 通路允许的最高速度运行。远低于链路应有带宽，说明通路比链路慢："
        "共享的 PCIe 交换芯片、转接卡或重定时器、IOMMU，或 GPU 不在同一 CPU 插槽下；链路协商低于最高速率或宽度是首要怀疑对象。"};
    f.actions.push_back(Action{
        Text{"Read the link's current and maximum generation and width, and the AER errors of the slot.",
             "查看链路当前与最高的代数和宽度，以及该插槽的 AER 错误。"},
        fmt::format("sudo lspci -vvv -s {} | grep -E 'LnkCap|LnkSta'", gpu.pci_bus_id)});
    f.actions.push_back(Action{
        Text{"Compare with the node's other GPUs and check which CPU socket and switch each GPU hangs off.",
             "与节点中其他 GPU 对比，并检查每块 GPU 所在的 CPU 插槽和 PCIe 交换芯片。"},
        "nvidia-smi topo -m"});
  }
}

}  // namespace stress_pcie_below_link_rule
}  // namespace

const Rule kStressPcieBelowLinkRule{
    "stress.pcie_below_link", "pcie",
    "Pinned PCIe copies under gpudoctor stress below 60 % of what the link's generation and width carry",
    kNeedsActive, stress_pcie_below_link_rule::Evaluate};

}  // namespace gpudoctor
