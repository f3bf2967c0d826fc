// stress.peer_pair_above_links: a GPU pair whose copies run above what its
// path can carry in theory (more than kP2pAboveShare of links x rate, or of
// the PCIe link). No copy outruns its links, so the expectation is wrong,
// not the GPUs: NVML reported fewer active links than there are, the link
// generation was read wrong, or the copy takes NVLink where only PCIe was
// seen. The pair is then not judged against its links, and the finding says
// so instead of passing it as fine.
#include <fmt/format.h>

#include "knowledge/nvlink_rates.h"
#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_peer_pair_above_links_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const ActivePeerCopy& p : input.active->p2p) {
    if (!p.gbps || !p.expected || p.expected->theoretical_gbps <= 0) continue;
    const PeerExpectation& e = *p.expected;
    const double share = *p.gbps / e.theoretical_gbps;
    if (share <= kP2pAboveShare) continue;
    Finding& f = out.Add(Severity::kInfo);
    f.gpus = {p.src_bus, p.dst_bus};
    f.causes = active::PeerPairCauses(p);
    const std::string pair = fmt::format("GPU {} → GPU {}", p.src_index, p.dst_index);
    const std::string pct = FormatNumber(100 * share, 0);
    const bool nvlink = e.path != "pcie";
    f.title = Text{fmt::format("{} copies at {} % of what its {} can carry: the expected rate is wrong, not the pair",
                               pair, pct, nvlink ? "NVLink links" : "PCIe link"),
                   fmt::format("{} 的拷贝带宽达到其{}理论带宽的 {} %：是预期带宽有误，而非这对 GPU", pair,
                               nvlink ? " NVLink 链路" : " PCIe 链路", pct)};
    const std::string what = nvlink ? fmt::format("{} {} link{} x {} GB/s", e.links, e.link_name,
                                                  e.links == 1 ? "" : "s", FormatNumber(e.link_gbps, 1))
                                    : fmt::format("{}", e.link_name);
    f.evidence.push_back(active::Number(
        Text{fmt::format("{} {} GB/s measured against {} GB/s in theory ({}; {})", pair, FormatNumber(*p.gbps, 1),
                         FormatNumber(e.theoretical_gbps, 1), what, e.source),
             fmt::format("{} 实测 {} GB/s，理论为 {} GB/s（{}；{}）", pair, FormatNumber(*p.gbps, 1),
                         FormatNumber(e.theoretical_gbps, 1), what, e.source)},
        *p.gbps, "GB/s"));
    f.explanation = Text{
        nvlink ? "No copy runs faster than the links it crosses, so the links counted for this pair are not all "
                 "of them: NVML reported fewer active links (or an older NVLink generation) than the pair uses. "
                 "The pair was not judged against its links: compare the link count with the GPU model's "
                 "published NVLink topology."
               : "No copy runs faster than the links it crosses, so this pair does not copy over the PCIe link "
                 "it was judged against: it most likely has NVLink (or a faster PCIe path) that NVML did not "
                 "report. The pair was not judged against its path.",
        nvlink ? "拷贝不可能快于其经过的链路，因此为这对 GPU 统计的链路并不完整：NVML 报告的活动链路数（或 NVLink 代数）"
                 "少于实际使用的。未能以链路判断这对 GPU：请将链路数与该 GPU 型号公布的 NVLink 拓扑对比。"
               : "拷贝不可能快于其经过的链路，因此这对 GPU 并未经由用来判断它的 PCIe 链路拷贝：它很可能有 NVML "
                 "未报告的 NVLink（或更快的 PCIe 通路）。未能以通路判断这对 GPU。"};
    f.actions.push_back(Action{Text{"Read the links of both GPUs as the driver sees them.",
                                    "查看驱动所见的两块 GPU 的链路。"},
                               fmt::format("nvidia-smi nvlink --status -i {} && nvidia-smi nvlink --status -i {}",
                                           p.src_index, p.dst_index)});
    f.actions.push_back(Action{Text{"Read how the GPUs are connected.", "查看 GPU 之间的连接方式。"},
                               "nvidia-smi topo -m"});
  }
}

}  // namespace stress_peer_pair_above_links_rule
}  // namespace

const Rule kStressPeerPairAboveLinksRule{
    "stress.peer_pair_above_links", "nvlink",
    "A GPU pair whose copies under gpudoctor stress run above 110 % of what its NVLink links or PCIe link "
    "carry in theory: the expectation (links counted, generation) is wrong",
    kNeedsActive, stress_peer_pair_above_links_rule::Evaluate};

}  // namespace gpudoctor
