#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "collect/host_facts.h"
#include "render/facts_host_json.h"
#include "render/facts_net_json.h"
#include "render/facts_pci_json.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

TEST(FactsHostJson, UnitsInKeysAndReasonsForMissingSources) {
  test::TempDir root;  // empty: nothing readable
  CollectContext ctx;
  ctx.root = root.path();
  auto facts = CollectHost(ctx, std::chrono::milliseconds(0));
  auto j = ToJson(facts);
  EXPECT_FALSE(j["cpu"]["available"].get<bool>());
  EXPECT_NE(j["cpu"]["why"].get<std::string>().find("/proc/stat"), std::string::npos);
  EXPECT_TRUE(j["memory"]["total_bytes"].is_null());
  EXPECT_TRUE(j["memory"]["swap_in_bytes_per_s"].is_null());
  EXPECT_TRUE(j["memory"]["ram_to_gpu"].is_null());
  ASSERT_TRUE(j["memory"]["sources"].is_array());
  EXPECT_EQ(j["memory"]["sources"][0]["source"], "/proc/meminfo");
  EXPECT_FALSE(j["memory"]["sources"][0]["available"].get<bool>());
  EXPECT_TRUE(j["memory"]["sources"][0].contains("why"));
  EXPECT_EQ(j["cgroup"]["sources"][0]["source"], "/proc/self/cgroup");
}

TEST(FactsHostJson, ValuesAndGpuProcesses) {
  HostFacts f;
  f.cpu_usage.available = true;
  f.cpu_usage.total.total_percent = 97.5;
  f.cpu_usage.total.steal_percent = 12.0;
  f.cpu_usage.top_processes.push_back(ProcessCpu{42, "python", "python train.py", 180.0});
  f.cpu.effective_cores = 8.0;
  f.cores_per_gpu = 1.0;
  f.memory.swap_in_bytes_per_s = 4096.0;
  f.ram_to_gpu = RamToGpuRatio{0.5, "low", "x"};
  f.cgroup.memory_limit_bytes = 1024;
  auto j = ToJson(f);
  EXPECT_DOUBLE_EQ(j["cpu"]["total_percent"].get<double>(), 97.5);
  EXPECT_DOUBLE_EQ(j["cpu"]["steal_percent"].get<double>(), 12.0);
  EXPECT_EQ(j["cpu"]["top_processes"][0]["cmdline"], "python train.py");
  EXPECT_DOUBLE_EQ(j["cpu"]["cores_per_gpu"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["memory"]["swap_in_bytes_per_s"].get<double>(), 4096.0);
  EXPECT_EQ(j["memory"]["ram_to_gpu"]["verdict"], "low");
  EXPECT_EQ(j["memory"]["cgroup_limit_bytes"], 1024);

  ProcessInfo hidden;
  hidden.pid = 7;
  hidden.why_not_visible = "pid 7 not in this /proc";
  ProcessInfo shown;
  shown.pid = 8;
  shown.visible = true;
  shown.container = ContainerRef{"docker", "0123456789ab", ""};
  auto p = ToJson(std::vector<ProcessInfo>{hidden, shown});
  EXPECT_FALSE(p[0]["visible"].get<bool>());
  EXPECT_EQ(p[0]["why_not_visible"], "pid 7 not in this /proc");
  EXPECT_TRUE(p[0]["container"].is_null());
  EXPECT_FALSE(p[1].contains("why_not_visible"));
  EXPECT_EQ(p[1]["container"]["container_id"], "0123456789ab");
}

TEST(FactsPciJson, DeviceAndDropped) {
  PciDevice d;
  d.bus_id = "0000:3b:00.0";
  d.kind = PciFunctionKind::kGpu;
  d.vendor_id = 0x10de;
  d.device_id = 0x20b2;
  d.class_code = 0x030200;
  d.revision = 0xff;
  d.answers = false;
  d.no_answer_detail = "revision reads 0xff";
  d.link_width_current = 8;
  d.link_width_max = 16;
  d.aer_correctable = AerCounters{{{"BadTLP", 3}}, 3};
  auto j = ToJson(d);
  EXPECT_EQ(j["vendor_id"], "0x10de");
  EXPECT_EQ(j["device_id"], "0x20b2");
  EXPECT_EQ(j["class"], "0x030200");
  EXPECT_EQ(j["revision"], "0xff");
  EXPECT_FALSE(j["answers"].get<bool>());
  EXPECT_TRUE(j["link"]["degraded"].get<bool>());
  EXPECT_EQ(j["link"]["degradation"], "x8 of x16");
  EXPECT_TRUE(j["link"]["gen_current"].is_null());
  EXPECT_EQ(j["aer"]["correctable"]["counters"]["BadTLP"], 3);
  EXPECT_TRUE(j["aer"]["fatal"].is_null());
  EXPECT_TRUE(j["numa_node"].is_null());

  auto dropped = ToJson(std::vector<DroppedGpu>{{"0000:3b:00.0", DropReason::kNoAnswer, "a"},
                                                {"", DropReason::kBelowExpectedCount, "b"}});
  EXPECT_EQ(dropped[0]["reason"], "no_answer");
  EXPECT_TRUE(dropped[1]["bus_id"].is_null());
  EXPECT_EQ(dropped[1]["reason"], "below_expected_count");
}

TEST(FactsNetJson, InterfacesRdmaPings) {
  NetFacts f;
  NetInterfaceRates r;
  r.interface.name = "eth0";
  r.interface.speed_mbps = 1000;
  r.rx_mbps = 940.5;
  f.interfaces.push_back(r);
  RdmaDevice dev;
  dev.name = "mlx5_0";
  RdmaPort port;
  port.port = 1;
  port.state = IbPortState{4, "ACTIVE"};
  port.link_layer = "Ethernet";
  port.roce = true;
  dev.ports.push_back(port);
  f.rdma.devices.push_back(dev);
  PingResult ping;
  ping.target = "10.0.0.1";
  ping.why = "ICMP not permitted";
  ping.stats.sent = 0;
  f.pings.push_back(ping);
  auto j = ToJson(f);
  EXPECT_EQ(j["interfaces"][0]["speed_mbps"], 1000);
  EXPECT_DOUBLE_EQ(j["interfaces"][0]["rx_mbps"].get<double>(), 940.5);
  EXPECT_TRUE(j["interfaces"][0]["tx_mbps"].is_null());
  EXPECT_EQ(j["rdma"]["devices"][0]["ports"][0]["state"], "ACTIVE");
  EXPECT_EQ(j["rdma"]["devices"][0]["ports"][0]["state_code"], 4);
  EXPECT_TRUE(j["rdma"]["devices"][0]["ports"][0]["roce"].get<bool>());
  EXPECT_EQ(j["pings"][0]["method"], "none");
  EXPECT_EQ(j["pings"][0]["why"], "ICMP not permitted");
  EXPECT_TRUE(j["pings"][0]["avg_ms"].is_null());
  EXPECT_TRUE(j["pings"][0]["loss_percent"].is_null());
}

TEST(LiveHost, ReadsThisMachine) {
  // The real /proc of whatever runs the tests: values exist, whatever they are.
  CollectContext ctx;
  auto facts = CollectHost(ctx, std::chrono::milliseconds(50));
  EXPECT_TRUE(facts.cpu_usage.available) << facts.cpu_usage.why;
  EXPECT_FALSE(facts.cpu_usage.cores.empty());
  EXPECT_GE(facts.cpu_usage.total.total_percent, 0.0);
  EXPECT_LE(facts.cpu_usage.total.total_percent, 100.0);
  EXPECT_GT(facts.memory.total_bytes.value_or(0), 0u);
  EXPECT_TRUE(facts.memory.major_faults_per_s.has_value());
}

}  // namespace
}  // namespace gpudoctor
