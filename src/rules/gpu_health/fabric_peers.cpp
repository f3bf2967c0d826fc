// nvlink.fabric_peers: GPU pairs that should talk over NVLink but whose
// NVLink P2P status (nvmlDeviceGetP2PStatus, NVLink caps index) is not OK.
// On an NVSwitch system every pair of GPUs is NVLink-connected; links can
// all read "up" while the fabric is not set up, and then CUDA P2P and NCCL
// fall back to PCIe at a fraction of the speed with nothing erroring. Where
// a link's remote end is known (status reads the topology), a pair joined by
// an active link is expected too. One finding names every such pair.
#include <fmt/format.h>

#include <set>
#include <utility>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace fabric_peers_rule {

constexpr std::size_t kPairsNamed = 12;

bool OnFabric(const GpuStatus& g) {
  return g.fabric && g.fabric->state != FabricState::kNotSupported;
}

bool LinkedTo(const GpuStatus& g, const std::string& peer_bus_id) {
  for (const NvLinkStatus& l : g.nvlinks) {
    if (l.active == true && !peer_bus_id.empty() && l.remote_pci_bus_id == peer_bus_id) return true;
  }
  return false;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const bool nvswitch = NvSwitchSystem(input);
  std::map<std::string, const GpuStatus*> by_bus;
  for (const GpuSeries& gpu : input.gpus) by_bus[gpu.key] = &gpu.latest();
  std::set<std::pair<unsigned, unsigned>> pairs;
  std::map<std::string, int> statuses;  // status name -> pairs
  std::set<std::string> involved;
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    if (g.state != GpuState::kOk) continue;
    for (const NvLinkPeer& p : g.nvlink_peers) {
      if (p.status == 0) continue;
      auto peer = by_bus.find(p.peer_pci_bus_id);
      if (peer == by_bus.end() || peer->second->state != GpuState::kOk) continue;
      const GpuStatus& other = *peer->second;
      const bool switched = (nvswitch || (OnFabric(g) && OnFabric(other))) && !g.nvlinks.empty();
      if (!switched && !LinkedTo(g, other.pci_bus_id) && !LinkedTo(other, g.pci_bus_id)) continue;
      const auto key = std::minmax(g.index, other.index);
      if (!pairs.insert(key).second) continue;
      ++statuses[P2PStatusName(p.status)];
      involved.insert(g.pci_bus_id);
      involved.insert(other.pci_bus_id);
    }
  }
  if (pairs.empty()) return;
  Finding& f = out.Add(Severity::kCritical);
  f.gpus.assign(involved.begin(), involved.end());
  std::string named;
  std::size_t n = 0;
  for (const auto& [a, b] : pairs) {
    if (n++ == kPairsNamed) break;
    named += fmt::format("{}{}-{}", named.empty() ? "" : ", ", a, b);
  }
  if (pairs.size() > kPairsNamed) named += fmt::format(" and {} more", pairs.size() - kPairsNamed);
  std::string named_zh = named;
  if (pairs.size() > kPairsNamed) {
    named_zh = named.substr(0, named.rfind(" and ")) +
               fmt::format(" 等，另有 {} 对", pairs.size() - kPairsNamed);
  }
  f.title = Text{fmt::format("{} GPU pairs cannot use NVLink peer-to-peer: the NVLink fabric is broken",
                             pairs.size()),
                 fmt::format("{} 对 GPU 无法通过 NVLink 点对点通信：NVLink 互联已损坏", pairs.size())};
  f.explanation = Text{
      "These GPUs are wired to each other over NVLink (through NVSwitches, or by their links), yet "
      "the driver says peer-to-peer over NVLink is not possible between them. The links may still "
      "read as up: the fabric above them is not set up (Fabric Manager, an NVSwitch fault), and "
      "CUDA P2P and NCCL fall back to PCIe at a fraction of the speed without an error.",
      "这些 GPU 之间通过 NVLink 相连（经 NVSwitch 或直接链路），但驱动报告它们之间无法通过 NVLink "
      "点对点通信。链路可能仍显示为连通：其上的互联没有配置好（Fabric Manager、NVSwitch 故障），CUDA P2P 和 "
      "NCCL 会在不报错的情况下退回 PCIe，速度只有一小部分。"};
  f.evidence.push_back(Measured(Text{fmt::format("GPU pairs without NVLink P2P: {}", named),
                                     fmt::format("无法 NVLink 点对点的 GPU 对：{}", named_zh)},
                                static_cast<double>(pairs.size()), "count"));
  for (const auto& [status, count] : statuses) {
    f.evidence.push_back(Measured(Text{fmt::format("{} pairs answer {}", count, status),
                                       fmt::format("{} 对 GPU 的结果为 {}", count, status)},
                                  count, "count"));
  }
  f.actions.push_back(Action{Text{"Show the NVLink P2P matrix the driver sees.",
                                  "查看驱动看到的 NVLink 点对点矩阵。"},
                             "nvidia-smi topo -p2p n"});
  f.actions.push_back(Action{Text{"Check Fabric Manager and each GPU's fabric state.",
                                  "检查 Fabric Manager 和每块 GPU 的互联状态。"},
                             "systemctl status nvidia-fabricmanager; nvidia-smi -q | grep -A6 -i '^ *fabric'"});
  f.actions.push_back(Action{Text{"If the fabric stays broken after Fabric Manager restarts, reboot "
                                  "the node (NVSwitch faults are cleared by a reset of the whole "
                                  "baseboard).",
                                  "如果重启 Fabric Manager 后互联仍然异常，请重启节点（NVSwitch 故障需整板复位才能清除）。"},
                             "sudo systemctl restart nvidia-fabricmanager"});
}

}  // namespace fabric_peers_rule
}  // namespace

const Rule kNvlinkFabricPeersRule{
    "nvlink.fabric_peers", "nvlink",
    "GPU pairs of an NVSwitch or NVLink-connected system that cannot use NVLink peer-to-peer",
    kNeedsGpuReadings, fabric_peers_rule::Evaluate};

}  // namespace gpudoctor
