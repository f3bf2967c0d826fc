// stress.peer_pair_below_links: a GPU pair whose copies run below 60 % of what its
// path carries in theory (knowledge/nvlink_rates.h, kP2pFlagBelowShare): the
// NVLink links between the two (or each GPU's links to the NVSwitch fabric)
// x the per-link rate of their generation, or, without NVLink, the PCIe
// link. A healthy path gives about 80 %. A link that is down is named; with
// every link up, the links run degraded (errors, replays) or the copy is not
// taking the NVLink path at all.
#include <fmt/format.h>

#include "knowledge/nvlink_rates.h"
#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_peer_pair_below_links_rule {

// "2 NVLink 2.0 links x 25 GB/s = 50 GB/s", "PCIe Gen4 x16, 31.5 GB/s".
Text PathText(const PeerExpectation& e) {
  const std::string total = FormatNumber(e.theoretical_gbps, 1), rate = FormatNumber(e.link_gbps, 1);
  if (e.path == "pcie") {
    bool staged = e.theoretical_gbps < e.link_gbps;
    return Text{fmt::format("{} carries {} GB/s a direction{}", e.link_name, rate,
                            staged ? fmt::format(", {} GB/s staged through host memory", total) : ""),
                fmt::format("{} 单向 {} GB/s{}", e.link_name, rate,
                            staged ? fmt::format("，经主机内存中转为 {} GB/s", total) : "")};
  }
  const char* via = e.path == "nvswitch" ? " to the NVSwitch fabric" : " between the two";
  const char* via_zh = e.path == "nvswitch" ? "（经 NVSwitch）" : "（直连）";
  return Text{fmt::format("{} {} link{}{} x {} GB/s = {} GB/s a direction", e.links, e.link_name,
                          e.links == 1 ? "" : "s", via, rate, total),
              fmt::format("{} 条 {} 链路{} x {} GB/s = 单向 {} GB/s", e.links, e.link_name, via_zh, rate, total)};
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const ActivePeerCopy& p : input.active->p2p) {
    if (!p.gbps || !p.expected || p.expected->theoretical_gbps <= 0) continue;
    const PeerExpectation& e = *p.expected;
    const double share = *p.gbps / e.theoretical_gbps;
    if (share >= kP2pFlagBelowShare) continue;
    Finding& f = out.Add(Severity::kWarning);
    f.gpus = {p.src_bus, p.dst_bus};
    f.causes = active::PeerPairCauses(p);
    const std::string pair = fmt::format("GPU {} → GPU {}", p.src_index, p.dst_index);
    const std::string pct = FormatNumber(100 * share, 0);
    const bool nvlink = e.path != "pcie";
    f.title = Text{fmt::format("{} copies at {} % of what its {} should carry", pair, pct,
                               nvlink ? "NVLink links" : "PCIe link"),
                   fmt::format("{} 的拷贝带宽仅为其{}应有带宽的 {} %", pair, nvlink ? " NVLink 链路" : " PCIe 链路", pct)};
    f.evidence.push_back(active::Number(
        Text{fmt::format("{} {} GB/s measured ({}), {} % of {} GB/s", pair, FormatNumber(*p.gbps, 1),
                         p.peer_access ? "peer access" : "staged through the host", pct,
                         FormatNumber(e.theoretical_gbps, 1)),
             fmt::format("{} 实测 {} GB/s（{}），为 {} GB/s 的 {} %", pair, FormatNumber(*p.gbps, 1),
                         p.peer_access ? "点对点访问" : "经主机中转", FormatNumber(e.theoretical_gbps, 1), pct)},
        *p.gbps, "GB/s"));
    Text path = PathText(e);
    const std::string healthy = FormatNumber(100 * e.achievable_share, 0);
    f.evidence.push_back(active::Number(
        Text{path.en + fmt::format("; a healthy path gives about {} % ({})", healthy, e.source),
             path.zh + fmt::format("；健康通路通常可达约 {} %（{}）", healthy, e.source)},
        e.theoretical_gbps, "GB/s"));
    if (nvlink && e.links_active < e.links) {
      f.evidence.push_back(active::Number(
          Text{fmt::format("only {} of those {} links are active", e.links_active, e.links),
               fmt::format("其中仅 {} / {} 条链路处于活动状态", e.links_active, e.links)},
          static_cast<double>(e.links_active), "links"));
    }
    f.explanation = Text{
        nvlink ? "Peer copies over NVLink run at what the links between the GPUs carry, less protocol overhead. "
                 "Far below that, a link is down or retraining, the links run with errors and replays, or the "
                 "copy does not take the NVLink path (peer access off, a fabric manager or NVSwitch fault). "
                 "Collective operations (NCCL all-reduce) run at the pace of the slowest pair."
               : "Without NVLink, peer copies cross PCIe: at best what the slower GPU's link carries, half of it "
                 "when staged through host memory. Far below that, the pair sits across CPU sockets or behind a "
                 "switch shared with other devices, or peer-to-peer traffic is routed through the root complex "
                 "(ACS, IOMMU).",
        nvlink ? "NVLink 上的点对点拷贝应接近 GPU 之间链路的带宽（扣除协议开销）。远低于此，说明有链路断开或正在重新训练、"
                 "链路带错运行并重传，或拷贝没有走 NVLink 通路（点对点访问关闭、Fabric Manager 或 NVSwitch 故障）。"
                 "集合通信（NCCL all-reduce）以最慢的一对为准。"
               : "没有 NVLink 时，点对点拷贝经过 PCIe：最多为较慢 GPU 的链路带宽，经主机内存中转时为其一半。远低于此，"
                 "说明这对 GPU 跨 CPU 插槽、位于与其他设备共享的交换芯片之后，或点对点流量被路由经过根复合体（ACS、IOMMU）。"};
    active::AddPeerPairActions(f, p.src_index, p.dst_index);
  }
}

}  // namespace stress_peer_pair_below_links_rule
}  // namespace

const Rule kStressPeerPairBelowLinksRule{
    "stress.peer_pair_below_links", "nvlink",
    "A GPU pair whose copies under gpudoctor stress run below 60 % of what its NVLink links (links x the "
    "generation's rate) or its PCIe link carry",
    kNeedsActive, stress_peer_pair_below_links_rule::Evaluate};

}  // namespace gpudoctor
