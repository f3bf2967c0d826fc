// network.rdma_rate: an ACTIVE RDMA port that trained at a lower rate than
// it should: below [network] ib_rate_gbps or the platform default (400 Gb/s
// NDR on HGX H100/H200/B200) for InfiniBand ports, else below the fastest of
// its peers (ports of the same adapter model and link layer on this node).
// A port that came up at a lower rate (HDR instead of NDR, 2X instead of 4X)
// after a bad cable or transceiver carries all its traffic at that rate and
// slows every collective that crosses it, with nothing erroring.
#include <fmt/format.h>

#include <algorithm>

#include "rules/engine/rdma_ports.h"
#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace network_rdma_rate_rule {

bool Peers(const RdmaDevice& a, const RdmaPort& p, const RdmaDevice& b, const RdmaPort& q) {
  return a.hca_type == b.hca_type && p.link_layer == q.link_layer;
}

// The fastest rate among the port's peers (itself included), and how many there are.
std::pair<double, unsigned> PeerBest(const DiagnosisInput& input, const RdmaDevice& d,
                                     const RdmaPort& p) {
  double best = 0;
  unsigned n = 0;
  for (const RdmaDevice& e : input.network->rdma.devices) {
    for (const RdmaPort& q : e.ports) {
      if (!q.active || !q.rate_gbps || !Peers(d, p, e, q)) continue;
      best = std::max(best, *q.rate_gbps);
      ++n;
    }
  }
  return {best, n};
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  ExpectedIbPorts expected = ExpectedComputePorts(input);
  std::vector<std::string> lines;
  for (const RdmaDevice& d : input.network->rdma.devices) {
    for (const RdmaPort& p : d.ports) {
      if (!p.active || !p.rate_gbps) continue;
      std::string why;
      if (IsComputePort(p) && expected.rate_gbps) {
        if (*p.rate_gbps < *expected.rate_gbps) {
          why = fmt::format("expected {} Gb/s ({})", FormatNumber(*expected.rate_gbps, 0),
                            expected.source);
        }
      } else {
        auto [best, peers] = PeerBest(input, d, p);
        if (peers >= 2 && *p.rate_gbps < best) {
          why = fmt::format("the fastest of its {} peer ports ({} {}) runs at {} Gb/s", peers - 1,
                            d.hca_type.empty() ? "same adapter" : d.hca_type, p.link_layer,
                            FormatNumber(best, 0));
        }
      }
      if (why.empty()) continue;
      lines.push_back(
          fmt::format("{} port {}: {} ({}); {}{}", d.name, p.port, p.rate_text,
                      FormatNumber(*p.rate_gbps, 0) + " Gb/s", why,
                      d.nearest_gpus.empty() ? "" : "; next to GPU " + d.nearest_gpus.front()));
    }
  }
  if (lines.empty()) return;
  Finding& f = out.Add(Severity::kWarning);
  f.title = Text{fmt::format("{} RDMA port(s) running below their rate", lines.size()),
                 fmt::format("{} 个 RDMA 端口运行速率低于应有速率", lines.size())};
  f.explanation = Text{
      "The port is up but trained at a lower rate (fewer lanes or an older speed) than it should. "
      "Nothing errors, yet every collective that crosses this port runs at its pace. The usual "
      "cause is a damaged cable or transceiver, a dirty connector, or a switch port set lower.",
      "该端口已连通，但协商到的速率（更少的通道或更旧的速率）低于应有速率。不会报错，但经过该端口的"
      "每次集合通信都会被它拖慢。常见原因是线缆或光模块损坏、接头脏污，或交换机端口速率设置过低。"};
  for (const auto& line : lines) f.evidence.push_back(TextEvidence(line, Backquoted(line)));
  f.actions.push_back(Action{Text{"Show each port's rate and width.", "查看各端口的速率和宽度。"},
                             "ibstat | grep -E 'CA |Rate|State'"});
  f.actions.push_back(Action{
      Text{"Reseat or replace the cable and transceiver of the slow port; check the switch port's "
           "configured speed. If the expected rate is wrong for this node, set [network] "
           "ib_rate_gbps.",
           "重新插拔或更换慢端口的线缆和光模块；检查交换机端口设置的速率。若预期速率对本节点不适用"
           "，请设置 "
           "[network] ib_rate_gbps。"},
      ""});
}

}  // namespace network_rdma_rate_rule
}  // namespace

const Rule kNetworkRdmaRateRule{"network.rdma_rate", "network",
                                "RDMA ports up at a lower rate than expected or than their peers",
                                kNeedsNetwork, network_rdma_rate_rule::Evaluate};

}  // namespace gpudoctor
