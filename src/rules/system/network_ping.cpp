// network.ping: packet loss and latency to the configured targets
// ([network] ping), the way `ping -c 100` is used in the manual checklist.
// Loss above 1 % stalls collective operations and remote reads (TCP
// retransmits); a high average latency is worth knowing.
#include <fmt/format.h>

#include "rules/system/group.h"
#include "rules/system/system_util.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace network_ping_rule {

constexpr double kLossHighPercent = 1;
constexpr double kLatencyHighMs = 100;

void AddEvidence(const PingResult& p, Finding& f) {
  const PingStats& s = p.stats;
  std::string loss = FormatNumber(*s.loss_percent);
  f.evidence.push_back(
      NumberEvidence(fmt::format("{} ({}): {} % loss, {} of {} answered ({})", p.target, p.address,
                                 loss, s.received, s.sent, PingMethodName(p.method)),
                     fmt::format("{}（{}）：丢包 {} %，{} 次中 {} 次有应答（{}）", p.target,
                                 p.address, loss, s.sent, s.received, PingMethodName(p.method)),
                     *s.loss_percent, "percent"));
  if (s.avg_ms && s.max_ms) {
    std::string avg = FormatNumber(*s.avg_ms, 2);
    std::string max = FormatNumber(*s.max_ms, 2);
    f.evidence.push_back(NumberEvidence(fmt::format("round trip avg {} ms, max {} ms", avg, max),
                                        fmt::format("往返时间平均 {} ms，最大 {} ms", avg, max),
                                        *s.avg_ms, "milliseconds"));
  }
}

void ReportTarget(const PingResult& p, RuleOutput& out) {
  if (!p.available || !p.stats.loss_percent) {
    std::string why = p.why.empty() ? std::string("nothing was sent") : p.why;
    out.NotCheckedBecause(
        Text{fmt::format("ping to {} could not be measured: {}", p.target, why),
             fmt::format("无法测量到 {} 的 ping：{}", p.target, Backquoted(why))});
    return;
  }
  bool lossy = *p.stats.loss_percent > kLossHighPercent;
  bool slow = p.stats.avg_ms && *p.stats.avg_ms > kLatencyHighMs;
  if (!lossy && !slow) return;
  Finding& f = out.Add(lossy ? Severity::kWarning : Severity::kInfo);
  if (lossy) {
    std::string loss = FormatNumber(*p.stats.loss_percent);
    f.title = Text{fmt::format("{} % packet loss to {}", loss, p.target),
                   fmt::format("到 {} 的丢包率为 {} %", p.target, loss)};
  } else {
    std::string avg = FormatNumber(*p.stats.avg_ms, 0);
    f.title = Text{fmt::format("High latency to {}: {} ms on average", p.target, avg),
                   fmt::format("到 {} 的延迟较高：平均 {} ms", p.target, avg)};
  }
  f.explanation = Text{
      "Lost packets are sent again after a timeout, so every loss stalls the transfer that hit "
      "it: NCCL collectives across nodes, reads from network storage, parameter servers. More "
      "than 1 % loss points to congestion, a faulty cable, NIC or switch port, or a rate limit. "
      "High latency slows every small exchange.",
      "丢失的数据包要等超时后重传，每次丢包都会让相应的传输停顿：跨节点的 NCCL "
      "集合通信、网络存储读取、参数服务器等。"
      "丢包率超过 1 % "
      "通常说明网络拥塞、线缆、网卡或交换机端口故障，或存在限速。延迟高会拖慢每一次小数据量的交互"
      "。"};
  AddEvidence(p, f);
  f.actions.push_back(
      Action{Text{"See on which hop the loss or delay starts.", "查看丢包或延迟从哪一跳开始出现。"},
             fmt::format("mtr -rwc 100 {}", p.address)});
  f.actions.push_back(
      Action{Text{"Check this host's NICs for errors and drops.", "检查本机网卡的错误和丢包计数。"},
             "ip -s link"});
  f.actions.push_back(Action{
      Text{"If the loss is outside this host, report it to the network team or cloud provider "
           "with the mtr output.",
           "如果丢包发生在本机之外，请把 mtr 的输出提供给网络团队或云厂商。"},
      ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  if (input.network->pings.empty()) {
    out.NotCheckedBecause(Text{
        "no ping targets were given: set [network] ping in the config (e.g. the storage server "
        "or another training node)",
        "未指定 ping 目标：请在配置文件中设置 `[network] ping`（例如存储服务器或其他训练节点）"});
    return;
  }
  for (const PingResult& p : input.network->pings) ReportTarget(p, out);
}

}  // namespace network_ping_rule
}  // namespace

const Rule kNetworkPingRule{"network.ping", "network",
                            "Packet loss above 1 % or high latency to the configured ping targets",
                            kNeedsNetwork, network_ping_rule::Evaluate};

}  // namespace gpudoctor
