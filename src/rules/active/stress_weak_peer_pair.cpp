// stress.weak_peer_pair: a GPU pair whose copies run far below the node's
// other pairs: less than 70 % of the median of all pairs. On an NVLink or
// NVSwitch node every pair should be alike; one slow pair is a link down,
// degraded or not trained (or, on PCIe, a pair across sockets). What a pair's
// NVLink generation and link count should give is stress.peer_pair_below_links.
#include <fmt/format.h>

#include <algorithm>

#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_weak_peer_pair_rule {

constexpr double kWeakBelowMedian = 0.70;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  std::vector<double> rates;
  for (const ActivePeerCopy& p : input.active->p2p) {
    if (p.gbps) rates.push_back(*p.gbps);
  }
  if (rates.size() < 2) return;
  const std::size_t n = rates.size();
  const double median = active::Median(rates);
  for (const ActivePeerCopy& p : input.active->p2p) {
    if (!p.gbps || *p.gbps >= kWeakBelowMedian * median) continue;
    Finding& f = out.Add(Severity::kWarning);
    f.gpus = {p.src_bus, p.dst_bus};
    f.causes = active::PeerPairCauses(p);
    std::string pair = fmt::format("GPU {} → GPU {}", p.src_index, p.dst_index);
    std::string pct = FormatNumber(100 * *p.gbps / median, 0);
    f.title = Text{fmt::format("{} copies at {} % of the node's median pair", pair, pct),
                   fmt::format("{} 的拷贝带宽仅为节点 GPU 对中位数的 {} %", pair, pct)};
    f.evidence.push_back(active::Number(
        Text{fmt::format("{} {} GB/s ({}) against a median of {} GB/s over {} directions", pair,
                         FormatNumber(*p.gbps, 1), p.peer_access ? "peer access" : "staged through the host",
                         FormatNumber(median, 1), n),
             fmt::format("{} {} GB/s（{}），{} 个方向的中位数为 {} GB/s", pair, FormatNumber(*p.gbps, 1),
                         p.peer_access ? "点对点访问" : "经主机中转", n, FormatNumber(median, 1))},
        *p.gbps, "GB/s"));
    f.explanation = Text{
        "Under the same copy this pair of GPUs moves data far slower than the node's other pairs. On an "
        "NVLink or NVSwitch node that is a link down, degraded or not trained; on PCIe, a pair across CPU "
        "sockets or behind a slower switch. Collective operations (NCCL all-reduce) run at the pace of the "
        "slowest pair.",
        "在相同拷贝下，这对 GPU 的数据传输远慢于节点中的其他 GPU 对。在 NVLink 或 NVSwitch 节点上，这说明有链路断开、"
        "降级或未协商成功；在 PCIe 上，说明这对 GPU 跨 CPU 插槽或位于较慢的交换芯片之后。集合通信（NCCL all-reduce）"
        "以最慢的一对为准。"};
    active::AddPeerPairActions(f, p.src_index, p.dst_index);
  }
}

}  // namespace stress_weak_peer_pair_rule
}  // namespace

const Rule kStressWeakPeerPairRule{
    "stress.weak_peer_pair", "nvlink",
    "A GPU pair whose copies under gpudoctor stress run below 70 % of the node's median pair", kNeedsActive,
    stress_weak_peer_pair_rule::Evaluate};

}  // namespace gpudoctor
