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
  const auto start = std::chrono::steady_clock::now();
  NetSnapshot a = ReadNet(ctx);
  if (sample_window.count() > 0) facts.rdma_before = ReadRdma(ctx);
  WaitSampleWindow(ctx, sample_window);
  NetSnapshot b = ReadNet(ctx);
  facts.interfaces = NetRatesBetween(a, b);
  facts.sources = b.sources;
  CollectContext end = ctx;
  end.now += std::chrono::duration_cast<std::chrono::system_clock::duration>(
      std::chrono::steady_clock::now() - start);
  facts.rdma = ReadRdma(end);
  if (pings.valid()) facts.pings = pings.get();
  return facts;
}

}  // namespace gpudoctor
