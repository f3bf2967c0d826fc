// network.rdma_saturated: an RDMA port's error counter pinned at its maximum
// (2^width - 1; the IBTA PortCounters are 4 to 16 bits wide and stop there):
// it counted that many events since the counters were last cleared, and
// counts no more, so its rate is unknown. Info only: the events are old and
// of unknown age. A counter pinned on most ports of the node alike (mlx5
// reports excessive_buffer_overrun_errors at 15 on every port of the real
// HGX H100 capture in shared/fixtures/infiniband) is a trait of the adapter
// or its firmware, not of one port, and is left to `facts`.
#include <fmt/format.h>

#include "knowledge/ib_counters.h"
#include "rules/engine/rdma_ports.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace network_rdma_saturated_rule {

// How many ports have the counter, and on how many it is saturated.
std::pair<unsigned, unsigned> SaturatedAcrossPorts(const DiagnosisInput& input,
                                                   const std::string& name) {
  unsigned with = 0;
  unsigned saturated = 0;
  for (const RdmaDevice& d : input.network->rdma.devices) {
    for (const RdmaPort& p : d.ports) {
      auto v = p.Counter(name);
      if (!v) continue;
      ++with;
      saturated += IbCounterSaturated(name, *v) ? 1 : 0;
    }
  }
  return {with, saturated};
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  std::vector<std::string> lines;
  for (const RdmaDevice& d : input.network->rdma.devices) {
    for (const RdmaPort& p : d.ports) {
      for (const RdmaCounter& c : p.counters) {
        if (c.hw || FindIbCounter(c.name).kind == IbCounterClass::kOther) continue;
        if (!IbCounterSaturated(c.name, c.value)) continue;
        auto [with, saturated] = SaturatedAcrossPorts(input, c.name);
        if (with >= 3 && saturated * 2 > with) continue;  // the node's trait, not this port's
        lines.push_back(fmt::format(
            "{}: {} pinned at {}, the {}-bit counter's maximum: at least that many since the "
            "counters were last cleared; rate unknown",
            RdmaPortLabel(d, p), c.name, c.value, FindIbCounter(c.name).width_bits.value_or(0)));
      }
    }
  }
  if (lines.empty()) return;
  Finding& f = out.Add(Severity::kInfo);
  f.title = Text{fmt::format("{} RDMA error counter(s) saturated, rate unknown", lines.size()),
                 fmt::format("{} 个 RDMA 错误计数器已饱和，增长速率未知", lines.size())};
  f.explanation = Text{
      "InfiniBand error counters are narrow (link_downed has 8 bits) and stop at their maximum. "
      "The port had that many events at some time since its counters were last cleared, and new "
      "ones can no longer be seen. Clear the counters to watch the port again.",
      "InfiniBand 错误计数器位宽很窄（link_downed 只有 8 位），到最大值后就不再增长。"
      "说明自上次清零以来该端口曾发生过这么多次事件，之后的新事件已无法看到。清零计数器后即可重新观"
      "察该端口。"};
  for (const auto& line : lines) f.evidence.push_back(TextEvidence(line, Backquoted(line)));
  f.actions.push_back(Action{
      Text{"Clear the port's counters (on the port's device), then watch whether they rise again.",
           "清零该端口的计数器（在对应设备上），然后观察是否再次增长。"},
      "sudo perfquery -R -C <device> -P <port>"});
}

}  // namespace network_rdma_saturated_rule
}  // namespace

const Rule kNetworkRdmaSaturatedRule{"network.rdma_saturated", "network",
                                     "RDMA error counters pinned at their maximum (rate unknown)",
                                     kNeedsNetwork, network_rdma_saturated_rule::Evaluate};

}  // namespace gpudoctor
