#include "collect/net_facts.h"

#include <future>
#include <thread>

namespace gpudoctor {

NetFacts CollectNetwork(const CollectContext& ctx, std::chrono::milliseconds sample_window,
                        const std::vector<PingTarget>& ping_targets,
                        const PingOptions& ping_options) {
  NetFacts facts;
  std::future<std::vector<PingResult>> pings;
  if (!ping_targets.empty()) {
    pings = std::async(std::launch::async, [&ping_targets, ping_options] {
      return PingAll(ping_targets, ping_options);
    });
  }
  NetSnapshot a = ReadNet(ctx);
  WaitSampleWindow(ctx, sample_window);
  NetSnapshot b = ReadNet(ctx);
  facts.interfaces = NetRatesBetween(a, b);
  facts.sources = b.sources;
  facts.rdma = ReadRdma(ctx);
  if (pings.valid()) facts.pings = pings.get();
  return facts;
}

}  // namespace gpudoctor
