// network.rdma_errors: RDMA port error counters that rose over the window.
// Critical when a counter rises that means the link went down or lost its
// integrity (link_downed, local_link_integrity_errors,
// excessive_buffer_overrun_errors) or that RDMA retries ran out
// (rnr_nak_retry_err), or when symbol errors exceed the IBTA bit-error-rate
// bound ([network] ib_symbol_errors_per_hour, 120 an hour). A warning when
// symbol_error, link_error_recovery, port_rcv_errors, port_xmit_discards,
// roce_slow_restart or local_ack_timeout_err rise by [network]
// ib_error_count (10) or more, steadily (in more than one step when there
// are several). A counter that went down was cleared: a new baseline, no
// rise. A counter pinned at its maximum says so ("saturated, rate unknown").
#include <fmt/format.h>

#include <algorithm>

#include "knowledge/ib_counters.h"
#include "rules/engine/rdma_ports.h"
#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace network_rdma_errors_rule {

std::string SpanText(double span_s) {
  if (span_s >= 3600) return FormatNumber(span_s / 3600) + " h";
  if (span_s >= 120) return FormatNumber(span_s / 60, 0) + " min";
  return FormatNumber(span_s, 0) + " s";
}

std::string GrowthLine(const RdmaPortHistory& h, std::string_view name, const RdmaCounterGrowth& g,
                       const IbConfig& ib) {
  std::string line = fmt::format("{}: {} rose by {} ({} -> {})", RdmaPortLabel(*h.device, *h.port),
                                 name, g.increase, g.first, g.last);
  if (g.span_s > 0) {
    line += fmt::format(" in {}", SpanText(g.span_s));
    if (auto per_hour = g.PerHour())
      line += fmt::format(", {} an hour", FormatNumber(*per_hour, 0));
  }
  if (name == "symbol_error")
    line += fmt::format(" (bound {} an hour)", FormatNumber(ib.symbol_errors_per_hour, 0));
  if (g.resets > 0)
    line += fmt::format("; reset {} time(s), counted from the new baseline", g.resets);
  if (g.saturated) line += "; now saturated at its maximum, rate unknown from here";
  if (!h.device->nearest_gpus.empty())
    line += "; next to GPU " + fmt::format("{}", h.device->nearest_gpus.front());
  return line;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const IbConfig& ib = input.config.ib;
  Severity worst = Severity::kOk;
  std::vector<std::pair<std::string, double>> lines;  // text, rise
  std::vector<std::string> ports;
  for (const RdmaPortHistory& h : RdmaPortHistories(input)) {
    bool port_named = false;
    for (const RdmaCounter& c : h.port->counters) {
      if (FindIbCounter(c.name).kind == IbCounterClass::kOther) continue;
      auto g = GrowthOfCounter(h, c.name);
      if (!g) continue;
      auto severity = JudgeRdmaCounter(*g, c.name, ib);
      if (!severity) continue;
      worst = std::max(worst, *severity);
      lines.emplace_back(GrowthLine(h, c.name, *g, ib), static_cast<double>(g->increase));
      if (!port_named) ports.push_back(RdmaPortLabel(*h.device, *h.port));
      port_named = true;
    }
  }
  if (lines.empty()) return;
  Finding& f = out.Add(worst);
  f.title = Text{fmt::format("RDMA error counters rising on {} port(s)", ports.size()),
                 fmt::format("{} 个 RDMA 端口的错误计数在增长", ports.size())};
  f.explanation = Text{
      "These ports count errors while the node runs. link_downed means the link went down and came "
      "back (a flap); local_link_integrity_errors and excessive_buffer_overrun_errors mean the "
      "link "
      "lost its integrity; rnr_nak_retry_err means RDMA retries ran out and a connection failed. "
      "Symbol errors above the InfiniBand bit-error-rate bound, link recoveries, receive errors, "
      "discards and RoCE slow restarts make NCCL retransmit and stall: training slows or times out "
      "with every GPU looking healthy.",
      "这些端口在运行中计入了错误。link_downed 表示链路断开后又恢复（抖动）；"
      "local_link_integrity_errors 和 excessive_buffer_overrun_errors 表示链路失去完整性；"
      "rnr_nak_retry_err 表示 RDMA 重试耗尽、连接失败。超过 InfiniBand "
      "误码率上限的符号错误、链路恢复、接收错误、丢弃和 RoCE 慢启动都会让 NCCL "
      "重传并停顿：即使每块 GPU 看起来都正常，训练也会变慢或超时。"};
  for (const auto& [line, rise] : lines) {
    f.evidence.push_back(NumberEvidence(line, Backquoted(line), rise, "count"));
  }
  f.actions.push_back(
      Action{Text{"Watch the counters of the ports named above.", "观察上面列出的端口的计数器。"},
             "perfquery -x; ibstat"});
  f.actions.push_back(Action{
      Text{"Reseat or replace the cable and transceiver of the erroring port and check its switch "
           "port; on a cloud instance, report the host and the port to the provider.",
           "重新插拔或更换出错端口的线缆和光模块，并检查其交换机端口；云服务器请向云厂商报告该宿主"
           "机和端口。"},
      ""});
}

}  // namespace network_rdma_errors_rule
}  // namespace

const Rule kNetworkRdmaErrorsRule{
    "network.rdma_errors", "network",
    "RDMA port error counters rising (link down, integrity, bit errors, retries)", kNeedsNetwork,
    network_rdma_errors_rule::Evaluate};

}  // namespace gpudoctor
