// network.link_speed: the host's fastest physical NIC that is up runs below
// 10 Gbit/s, too slow to feed GPUs with remote data or to exchange
// gradients between nodes. A slow management port next to a fast data NIC
// is normal and not reported.
#include <fmt/format.h>

#include <algorithm>

#include "rules/system/group.h"
#include "rules/system/system_util.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace network_link_speed_rule {

constexpr std::int64_t kRecommendedMbps = 10000;
// Below a gigabit a server NIC has almost always negotiated down (a bad
// cable or switch port), beyond being slow.
constexpr std::int64_t kGigabitMbps = 1000;

bool UpPhysical(const NetInterface& i) { return i.physical && i.operstate == "up"; }

std::string Gbits(std::int64_t mbps) { return FormatNumber(static_cast<double>(mbps) / 1000, 1); }

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  std::vector<const NetInterface*> known;
  std::vector<std::string> unknown;
  for (const NetInterfaceRates& r : input.network->interfaces) {
    const NetInterface& i = r.interface;
    if (!UpPhysical(i)) continue;
    if (i.speed_mbps) {
      known.push_back(&i);
    } else {
      unknown.push_back(i.name);
    }
  }
  if (known.empty()) {
    if (!unknown.empty()) {
      std::string names = fmt::format("{}", fmt::join(unknown, ", "));
      out.NotCheckedBecause(Text{
          fmt::format("the link speed of {} is not reported (virtual NICs often do not)", names),
          fmt::format("{} 未报告链路速率（虚拟网卡通常不报告）", Backquoted(names))});
    }
    return;
  }
  std::int64_t fastest = 0;
  for (const NetInterface* i : known) fastest = std::max(fastest, *i->speed_mbps);
  if (fastest >= kRecommendedMbps) return;

  Finding& f = out.Add(fastest < kGigabitMbps ? Severity::kWarning : Severity::kInfo);
  std::string best = Gbits(fastest);
  f.title = Text{
      fmt::format("The fastest network link is {} Gbit/s (recommended 10 Gbit/s or more)", best),
      fmt::format("最快的网络链路仅 {} Gbit/s（建议 10 Gbit/s 及以上）", best)};
  f.explanation = Text{
      "Loading data from network storage and exchanging gradients between nodes both need a "
      "fast network; below 10 Gbit/s the GPUs wait for the network. A link below 1 Gbit/s on a "
      "server usually negotiated down because of a bad cable or switch port.",
      "从网络存储加载数据以及节点之间交换梯度都需要高速网络；低于 10 Gbit/s 时 GPU "
      "会等待网络。服务器上低于 1 Gbit/s "
      "的链路通常是因为线缆或交换机端口有问题而协商降速。"};
  for (const NetInterface* i : known) {
    std::string g = Gbits(*i->speed_mbps);
    f.evidence.push_back(NumberEvidence(fmt::format("{} up at {} Gbit/s", i->name, g),
                                        fmt::format("{} 已连接，速率 {} Gbit/s", i->name, g),
                                        static_cast<double>(*i->speed_mbps),
                                        "megabits_per_second"));
  }
  f.actions.push_back(Action{Text{"Check what the NIC and the switch port negotiated.",
                                  "检查网卡与交换机端口协商的速率。"},
                             fmt::format("sudo ethtool {}", known.front()->name)});
  f.actions.push_back(Action{
      Text{"For multi-node training or remote data, use an instance type or NIC with 10 Gbit/s or "
           "more (RDMA for multi-node training).",
           "多节点训练或读取远程数据时，请使用 10 Gbit/s "
           "及以上网络的实例规格或网卡（多节点训练建议 RDMA）。"},
      ""});
}

}  // namespace network_link_speed_rule
}  // namespace

const Rule kNetworkLinkSpeedRule{"network.link_speed", "network",
                                 "Fastest physical NIC that is up runs below 10 Gbit/s",
                                 kNeedsNetwork, network_link_speed_rule::Evaluate};

}  // namespace gpudoctor
