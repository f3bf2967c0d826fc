// network.rdma: RDMA (InfiniBand / RoCE) ports that are not ACTIVE. A port
// whose physical link is up but that is not ACTIVE has no subnet manager
// configuring it; a port that is down takes its NIC out of multi-node
// training (NCCL falls back to slower paths or fails). A down port on a NIC
// whose other port is active is taken for an uncabled spare and left out.
// The physical state names the likely cause: Polling (no signal from the
// other end) or Disabled.
#include <fmt/format.h>

#include <algorithm>

#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace network_rdma_rule {

constexpr int kPhysLinkUp = 5;  // phys_state "5: LinkUp"

std::string StateText(const std::optional<IbPortState>& s) {
  return s ? fmt::format("{}: {}", s->code, s->name) : std::string("?");
}

bool LinkUpNotActive(const RdmaPort& p) {
  return !p.active && p.phys_state && p.phys_state->code == kPhysLinkUp;
}

// What the physical state says about the cause.
std::string PhysMeaning(const std::optional<IbPortState>& s) {
  if (!s) return "";
  if (s->code == 2) return " -- Polling: no signal from the other end (cable, transceiver or peer gone)";
  if (s->code == 3) return " -- Disabled: the port was switched off";
  return "";
}

void AddPortEvidence(const RdmaDevice& d, const RdmaPort& p, Finding& f) {
  std::string line = fmt::format("{} port {}: state {}, physical state {}, {}{}{}{}", d.name, p.port,
                                 StateText(p.state), StateText(p.phys_state),
                                 p.link_layer.empty() ? "?" : p.link_layer,
                                 p.rate_text.empty() ? "" : ", " + p.rate_text,
                                 d.nearest_gpus.empty() ? "" : "; next to GPU " + d.nearest_gpus.front(),
                                 PhysMeaning(p.phys_state));
  f.evidence.push_back(TextEvidence(line, Backquoted(line)));
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  std::vector<std::pair<const RdmaDevice*, const RdmaPort*>> bad;
  bool no_sm = false;
  for (const RdmaDevice& d : input.network->rdma.devices) {
    bool any_active =
        std::any_of(d.ports.begin(), d.ports.end(), [](const RdmaPort& p) { return p.active; });
    for (const RdmaPort& p : d.ports) {
      if (p.active || !p.state) continue;
      if (LinkUpNotActive(p)) {
        no_sm |= !p.roce;
      } else if (any_active) {
        continue;  // an uncabled second port next to a working one
      }
      bad.emplace_back(&d, &p);
    }
  }
  if (bad.empty()) return;

  Finding& f = out.Add(Severity::kWarning);
  std::size_t n = bad.size();
  f.title = Text{fmt::format("{} RDMA port(s) not ACTIVE", n),
                 fmt::format("{} 个 RDMA 端口未处于 ACTIVE 状态", n)};
  f.explanation = Text{
      "Multi-node training sends its traffic (NCCL, GPUDirect RDMA) over these ports. A port that "
      "is not ACTIVE carries nothing: NCCL falls back to slower paths or times out. Physically up "
      "but not ACTIVE (INIT, ARMED) means no subnet manager configured the InfiniBand port; down "
      "means no link: cable, transceiver or switch port.",
      "多节点训练的通信（NCCL、GPUDirect RDMA）经由这些端口。未处于 ACTIVE "
      "状态的端口无法传输数据：NCCL "
      "会退回到更慢的路径或超时。物理链路已连通但未 ACTIVE（INIT、ARMED）说明没有子网管理器配置该 "
      "InfiniBand "
      "端口；处于断开状态则说明没有链路：检查线缆、光模块或交换机端口。"};
  for (const auto& [d, p] : bad) AddPortEvidence(*d, *p, f);
  f.actions.push_back(Action{Text{"Show the ports' state and rate.", "查看各端口的状态和速率。"},
                             "ibstat; ibv_devinfo"});
  if (no_sm) {
    f.actions.push_back(Action{
        Text{"Make sure a subnet manager runs on the fabric (on a switch, or opensm on one host).",
             "确认互联网络中有子网管理器在运行（在交换机上，或在某台主机上运行 opensm）。"},
        "sudo systemctl status opensm"});
  }
  f.actions.push_back(Action{
      Text{"Check the cable, transceiver and switch port of the ports that are down; on a cloud "
           "instance, report the host to the provider.",
           "检查断开端口的线缆、光模块和交换机端口；云服务器请向云厂商报告该宿主机。"},
      ""});
}

}  // namespace network_rdma_rule
}  // namespace

const Rule kNetworkRdmaRule{"network.rdma", "network",
                            "RDMA (InfiniBand / RoCE) ports that are down or not ACTIVE",
                            kNeedsNetwork, network_rdma_rule::Evaluate};

}  // namespace gpudoctor
