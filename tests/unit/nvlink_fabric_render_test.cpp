// The NVLink fabric in `/metrics`, in the compact fabric line of `status`
// and `watch` (render/fabric_line.h), and the host uptime it is judged by.
#include <gtest/gtest.h>

#include "collect/host_facts.h"
#include "render/fabric_line.h"
#include "render/prometheus_metrics.h"

namespace gpudoctor {
namespace nvlink_fabric_render_test_ns {

SystemStatus Board(unsigned gpus) {
  SystemStatus s;
  s.nvml_loaded = true;
  for (unsigned i = 0; i < gpus; ++i) {
    GpuStatus g;
    g.index = i;
    g.uuid = "GPU-" + std::to_string(i);
    g.pci_bus_id = "0000:1" + std::to_string(i) + ":00.0";
    GpuFabric f;
    f.state = FabricState::kCompleted;
    f.status_code = 0;
    f.status = "Success";
    f.degraded_bandwidth = false;
    g.fabric = f;
    for (unsigned p = 0; p < gpus; ++p) {
      if (p != i) g.nvlink_peers.push_back(NvLinkPeer{p, "", 0});
    }
    s.gpus.push_back(g);
  }
  return s;
}

TEST(NvlinkFabricRender, MetricsCarryStateHealthAndUnreachablePeers) {
  AgentLiveSnapshot s;
  s.status = Board(2);
  s.status.gpus[1].fabric->state = FabricState::kInProgress;
  s.status.gpus[1].fabric->status.clear();
  s.status.gpus[0].fabric->degraded_bandwidth = true;
  s.status.gpus[0].nvlink_peers[0].status = 5;
  const std::string text = RenderPrometheusMetrics(s, ExpositionFormat::kPrometheusText);
  auto has = [&](const std::string& prefix, const std::string& value) {
    for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
      const std::size_t eol = text.find('\n', at);
      const std::string line = text.substr(at, eol - at);
      if (line.size() > value.size() && line.compare(line.size() - value.size(), value.size(), value) == 0)
        return true;
    }
    return false;
  };
  EXPECT_NE(text.find("# TYPE gpudoctor_gpu_fabric_state gauge"), std::string::npos);
  EXPECT_TRUE(has("gpudoctor_gpu_fabric_state{", "\"} 3")) << text;
  EXPECT_TRUE(has("gpudoctor_gpu_fabric_state{", "\"} 2"));
  EXPECT_TRUE(has("gpudoctor_gpu_fabric_health{", "condition=\"degraded_bandwidth\"} 1"));
  EXPECT_EQ(text.find("condition=\"route_unhealthy\""), std::string::npos);  // not reported
  EXPECT_TRUE(has("gpudoctor_gpu_nvlink_peers_unreachable{", "\"} 1"));
  EXPECT_TRUE(has("gpudoctor_gpu_fabric_status_ok{", "\"} 1"));
}

TEST(NvlinkFabricRender, FabricLineNamesTheNvlinkFabric) {
  FabricSummary healthy;
  AddNvlinkFabric(Board(8), healthy);
  EXPECT_EQ(FabricLine(healthy), "fabric: NVLink 8/8 GPUs registered");
  SystemStatus broken = Board(8);
  broken.gpus[3].fabric->state = FabricState::kNotStarted;
  broken.gpus[3].fabric->status.clear();
  broken.gpus[3].fabric->status_code.reset();
  broken.gpus[5].nvlink_peers[0].status = 5;
  broken.gpus[0].nvlink_peers[4].status = 5;  // the same pair, 0-5
  FabricSummary s;
  AddNvlinkFabric(broken, s);
  EXPECT_EQ(FabricLine(s),
            "fabric: NVLink 7/8 GPUs registered (other: not_started), 1 pair(s) without NVLink P2P");
  EXPECT_EQ(FabricJson(s)["nvlink_fabric_worst"], "not_started");
  // No fabric and no RDMA port: no line.
  FabricSummary none;
  SystemStatus pcie;
  pcie.gpus.emplace_back();
  AddNvlinkFabric(pcie, none);
  EXPECT_EQ(FabricLine(none), "");
}

TEST(NvlinkFabricRender, UptimeParsing) {
  EXPECT_EQ(ParseUptimeSeconds("350735.47 234388.90\n"), 350735.47);
  EXPECT_EQ(ParseUptimeSeconds("42\n"), 42.0);
  EXPECT_FALSE(ParseUptimeSeconds(""));
  EXPECT_FALSE(ParseUptimeSeconds("abc 1"));
  EXPECT_FALSE(ParseUptimeSeconds("-5 1"));
}

}  // namespace nvlink_fabric_render_test_ns
}  // namespace gpudoctor
