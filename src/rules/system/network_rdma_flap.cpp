// network.rdma_flap: RDMA ports that went down and came back (flaps) or went
// down and stayed down (drops), from the port states of the readings over
// the window: the agent reads them every 10 s and keeps an hour. A drop is a
// port down for [network] ib_drop_minutes (4) or longer after it was ACTIVE:
// critical. Flaps are a warning, critical from three on: each one tears
// down every RDMA connection over the port, and NCCL's collectives stall or
// time out. A port that was never seen ACTIVE is network.rdma's.
#include <fmt/format.h>

#include "core/time_format.h"
#include "rules/engine/rdma_ports.h"
#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace network_rdma_flap_rule {

constexpr unsigned kCriticalFlaps = 3;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const double drop_s = input.config.ib.drop_minutes * 60;
  Severity worst = Severity::kOk;
  std::vector<std::string> lines;
  for (const RdmaPortHistory& h : RdmaPortHistories(input)) {
    RdmaPortOutages o = OutagesOf(h);
    bool dropped = o.down_now && o.down_now_s >= drop_s;
    if (o.flaps == 0 && !dropped) continue;
    std::string line = RdmaPortDescription(h) + ":";
    if (o.flaps > 0) {
      line += fmt::format(" went down and came back {} time(s)", o.flaps);
      worst = std::max(worst, o.flaps >= kCriticalFlaps ? Severity::kCritical : Severity::kWarning);
    }
    if (dropped) {
      line += fmt::format("{} down for {} min since {}", o.flaps > 0 ? "; then" : "",
                          FormatNumber(o.down_now_s / 60, 0),
                          o.last_down ? FormatRfc3339(*o.last_down) : std::string("?"));
      worst = Severity::kCritical;
    } else if (o.last_down) {
      line += ", last down at " + FormatRfc3339(*o.last_down);
    }
    lines.push_back(line);
  }
  if (lines.empty()) return;
  Finding& f = out.Add(worst);
  f.title = Text{fmt::format("{} RDMA port(s) flapped or dropped", lines.size()),
                 fmt::format("{} 个 RDMA 端口发生抖动或掉线", lines.size())};
  f.explanation = Text{
      "A port that goes down tears down every RDMA connection over it: NCCL's collectives stall, "
      "then time out or fall back to slower paths. A port that keeps coming back (flapping) points "
      "at a marginal cable, transceiver or switch port; one that stays down has lost its link.",
      "端口断开会中断其上的所有 RDMA 连接：NCCL "
      "集合通信停顿，随后超时或退回到更慢的路径。反复断开又恢复（抖动）说明线缆、光模块或交换机端口"
      "处于临界状态；持续断开则说明链路已丢失。"};
  for (const auto& line : lines) f.evidence.push_back(TextEvidence(line, Backquoted(line)));
  f.actions.push_back(Action{Text{"Look for link events of the port in the kernel log.",
                                  "在内核日志中查找该端口的链路事件。"},
                             "sudo dmesg -T | grep -i -E 'mlx5|link (up|down)'"});
  f.actions.push_back(Action{
      Text{"Reseat or replace the cable and transceiver and check the switch port; on a cloud "
           "instance, report the host and the port to the provider.",
           "重新插拔或更换线缆和光模块并检查交换机端口；云服务器请向云厂商报告该宿主机和端口。"},
      ""});
}

}  // namespace network_rdma_flap_rule
}  // namespace

const Rule kNetworkRdmaFlapRule{
    "network.rdma_flap", "network",
    "RDMA ports that went down and came back, or stayed down, in the window", kNeedsNetwork,
    network_rdma_flap_rule::Evaluate};

}  // namespace gpudoctor
