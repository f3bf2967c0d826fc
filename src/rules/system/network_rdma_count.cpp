// network.rdma_count: fewer InfiniBand (compute) ports than the node should
// have: [network] ib_ports, else the platform's default (8 on 8-GPU HGX
// H100/H200/B200, knowledge/ib_counters.h). A port that disappears from
// /sys/class/infiniband is a NIC the driver no longer lists.
#include <fmt/format.h>

#include "rules/engine/rdma_ports.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace network_rdma_count_rule {

// Fewer compute (InfiniBand) ports than expected. The platform default is
// only applied to a node that has InfiniBand at all: an HGX node rented
// without its compute fabric is not broken.
void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  ExpectedIbPorts expected = ExpectedComputePorts(input);
  if (!expected.ports) return;
  unsigned present = 0;
  unsigned active = 0;
  for (const RdmaDevice& d : input.network->rdma.devices) {
    for (const RdmaPort& p : d.ports) {
      if (!IsComputePort(p)) continue;
      ++present;
      active += p.active ? 1 : 0;
    }
  }
  if (present >= *expected.ports || (present == 0 && !expected.configured)) return;
  Finding& f = out.Add(Severity::kWarning);
  f.title =
      Text{fmt::format("{} of {} expected InfiniBand ports present", present, *expected.ports),
           fmt::format("预期 {} 个 InfiniBand 端口，实际只有 {} 个", *expected.ports, present)};
  f.explanation = Text{
      "The node has fewer InfiniBand ports than it should: a NIC the driver no longer lists "
      "(failed, "
      "fell off the PCIe bus, or its firmware did not come up). NCCL then runs its rings over "
      "fewer "
      "rails and the whole job slows to the node's pace.",
      "该节点的 InfiniBand 端口少于应有数量：驱动已不再列出某块网卡（故障、从 PCIe "
      "总线掉线或固件未启动）。NCCL 只能在更少的通道上通信，整个作业都会被拖慢。"};
  std::string line = fmt::format("{} InfiniBand port(s) present, {} ACTIVE; expected {} ({})",
                                 present, active, *expected.ports, expected.source);
  f.evidence.push_back(TextEvidence(line, Backquoted(line)));
  f.actions.push_back(Action{Text{"List the RDMA devices and the Mellanox NICs on the PCI bus.",
                                  "列出 RDMA 设备以及 PCI 总线上的 Mellanox 网卡。"},
                             "ibdev2netdev; lspci -d 15b3:"});
  f.actions.push_back(Action{
      Text{"If the count is right for this node, set [network] ib_ports in the configuration.",
           "若该数量对本节点而言正确，请在配置文件中设置 [network] ib_ports。"},
      ""});
}

}  // namespace network_rdma_count_rule
}  // namespace

const Rule kNetworkRdmaCountRule{"network.rdma_count", "network",
                                 "Fewer InfiniBand ports than configured or than the platform has",
                                 kNeedsNetwork, network_rdma_count_rule::Evaluate};

}  // namespace gpudoctor
