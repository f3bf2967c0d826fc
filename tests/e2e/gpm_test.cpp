// End-to-end: GPM on the fake NVML. `status --json` has the metrics where the
// GPU supports GPM and nulls elsewhere (a pre-Hopper GPU, a driver before
// R520); `status` and `watch` show them; `diagnose` fires the GPM rules
// (utilization.sm_idle, precision.tensor_idle, memory.bandwidth_bound,
// pcie.transfer_bound on GPM's PCIe rates); the agent serves them on
// /metrics and records them, and `report` charts them.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

constexpr std::int64_t kGpmMiB = 1024 * 1024;

// Four Hopper GPUs, one per GPM rule, and an A100 that asks for GPM but is
// pre-Hopper. GPU 3 copies: NVML's 20 ms throughput window saw little, GPM's
// rates (the whole interval) show 20 GB/s on a Gen4 x16 link.
std::string GpmScenario(const std::string& extra = "") {
  return R"({)" + extra + R"("gpus": [
    {"name": "NVIDIA H100 80GB HBM3", "gpm_supported": true, "utilization_gpu_percent": 97,
     "gpm_sm_activity_percent": 14.5, "gpm_sm_occupancy_percent": 6, "gpm_tensor_activity_percent": 8,
     "gpm_fp32_activity_percent": 5, "gpm_dram_bandwidth_percent": 10,
     "gpm_pcie_tx_bytes_per_s": 104857600, "gpm_pcie_rx_bytes_per_s": 52428800,
     "processes": [{"pid": 4242, "name": "python3", "used_memory_bytes": 1073741824}]},
    {"name": "NVIDIA H100 80GB HBM3", "gpm_supported": true, "utilization_gpu_percent": 95,
     "gpm_sm_activity_percent": 88, "gpm_tensor_activity_percent": 0.5,
     "gpm_fp32_activity_percent": 62, "gpm_dram_bandwidth_percent": 30},
    {"name": "NVIDIA H200", "gpm_supported": true, "utilization_gpu_percent": 90,
     "gpm_sm_activity_percent": 75, "gpm_tensor_activity_percent": 35,
     "gpm_fp32_activity_percent": 10, "gpm_dram_bandwidth_percent": 93},
    {"name": "NVIDIA H100 PCIe", "gpm_supported": true, "utilization_gpu_percent": 20,
     "gpm_sm_activity_percent": 15, "gpm_tensor_activity_percent": 10,
     "gpm_fp32_activity_percent": 2, "pcie_link_gen_current": 4, "pcie_link_width_current": 16,
     "pcie_link_gen_max": 4, "pcie_link_width_max": 16,
     "pcie_tx_bytes_per_s": 100000000, "pcie_rx_bytes_per_s": 100000000,
     "gpm_pcie_tx_bytes_per_s": 15000000000, "gpm_pcie_rx_bytes_per_s": 5000000000},
    {"name": "NVIDIA A100-SXM4-80GB", "gpm_supported": true, "utilization_gpu_percent": 97,
     "gpm_sm_activity_percent": 10}
  ]})";
}

TEST(GpmE2E, StatusJsonHasTheMetricsWhereSupportedAndNullsElsewhere) {
  TempDir dir;
  auto r = RunGpudoctor({"status", "--json"}, dir.Write("gpm.json", GpmScenario()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["gpus"].size(), 5u);
  const json& g0 = doc["gpus"][0];
  EXPECT_EQ(g0["gpm_supported"], true);
  EXPECT_EQ(g0["gpm_sm_activity_percent"], 14.5);
  EXPECT_EQ(g0["gpm_sm_occupancy_percent"], 6.0);
  EXPECT_EQ(g0["gpm_tensor_activity_percent"], 8.0);
  EXPECT_EQ(g0["gpm_pcie_tx_bytes_per_s"], 100 * kGpmMiB);
  EXPECT_EQ(g0["gpm_pcie_rx_bytes_per_s"], 50 * kGpmMiB);
  EXPECT_TRUE(g0["gpm_fp64_activity_percent"].is_null()) << "not given: not supported";
  EXPECT_TRUE(g0["gpm_nvlink_tx_bytes_per_s"].is_null());
  EXPECT_TRUE(g0["field_errors"].empty()) << g0["field_errors"].dump();
  // Pre-Hopper: the driver says "not supported", every metric is null.
  const json& a100 = doc["gpus"][4];
  EXPECT_EQ(a100["gpm_supported"], false);
  EXPECT_TRUE(a100["gpm_sm_activity_percent"].is_null());

  // Before R520 the driver has no GPM at all: support unknown, metrics null.
  auto old = RunGpudoctor({"status", "--json"},
                          dir.Write("old.json", GpmScenario(R"("driver_profile": "515.105.01", )")));
  ASSERT_EQ(old.exit_code, 0) << old.err;
  json old_doc = json::parse(old.out);
  for (const auto& g : old_doc["gpus"]) {
    EXPECT_TRUE(g["gpm_supported"].is_null()) << g.dump();
    EXPECT_TRUE(g["gpm_sm_activity_percent"].is_null());
    EXPECT_TRUE(g["field_errors"].empty()) << g["field_errors"].dump();
  }
  // R520 and later have it.
  auto r520 = RunGpudoctor({"status", "--json"},
                           dir.Write("r520.json", GpmScenario(R"("driver_profile": "520.61.05", )")));
  ASSERT_EQ(r520.exit_code, 0) << r520.err;
  EXPECT_EQ(json::parse(r520.out)["gpus"][0]["gpm_sm_activity_percent"], 14.5);
}

TEST(GpmE2E, StatusTableAndWatchLineShowSmActivity) {
  TempDir dir;
  const std::string scenario = dir.Write("gpm.json", GpmScenario());
  auto table = RunGpudoctor({"status", "--no-color"}, scenario);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("GPM (what the SMs did"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("    14.5%"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("  4  not supported"), std::string::npos) << table.out;

  auto watch = RunGpudoctor({"watch", "-n", "0.2", "--count", "2"}, scenario);
  ASSERT_EQ(watch.exit_code, 0) << watch.err;
  EXPECT_NE(watch.out.find("gpu=0 state=ok util=97%"), std::string::npos) << watch.out;
  EXPECT_NE(watch.out.find("sm_active=14%"), std::string::npos) << watch.out;
  // No GPM, no sm_active: the line stays as it was for those GPUs.
  for (std::size_t at = watch.out.find("gpu=4 "); at != std::string::npos;
       at = watch.out.find("gpu=4 ", at + 1)) {
    EXPECT_EQ(watch.out.substr(at, watch.out.find('\n', at) - at).find("sm_active"),
              std::string::npos);
  }
}

std::set<std::string> GpmFindings(const json& doc, const std::string& bus_id) {
  std::set<std::string> ids;
  for (const auto& f : doc["findings"]) {
    for (const auto& g : f["gpus"]) {
      if (g == bus_id) ids.insert(f["id"].get<std::string>());
    }
  }
  return ids;
}

TEST(GpmE2E, DiagnoseFiresEachGpmRuleOnItsGpu) {
  TempDir dir, root;
  root.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  ProcessOptions po;
  po.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  auto r = RunGpudoctor({"diagnose", "--root", root.path().string(), "--duration", "1500ms",
                         "--interval", "300ms", "--lang", "en", "--format", "json"},
                        dir.Write("gpm.json", GpmScenario()), po);
  ASSERT_TRUE(r.exit_code == 1 || r.exit_code == 2) << r.exit_code << r.err;
  json doc = json::parse(r.out);
  auto gpu0 = GpmFindings(doc, "0000:01:00.0");
  auto gpu1 = GpmFindings(doc, "0000:02:00.0");
  auto gpu2 = GpmFindings(doc, "0000:03:00.0");
  auto gpu3 = GpmFindings(doc, "0000:04:00.0");
  auto gpu4 = GpmFindings(doc, "0000:05:00.0");
  EXPECT_TRUE(gpu0.count("utilization.sm_idle")) << doc["findings"].dump(1);
  EXPECT_FALSE(gpu0.count("precision.tensor_idle"));
  EXPECT_TRUE(gpu1.count("precision.tensor_idle")) << doc["findings"].dump(1);
  EXPECT_FALSE(gpu1.count("utilization.sm_idle"));
  EXPECT_TRUE(gpu2.count("memory.bandwidth_bound")) << doc["findings"].dump(1);
  EXPECT_EQ(gpu2.size(), 1u) << doc["findings"].dump(1);
  EXPECT_TRUE(gpu3.count("pcie.transfer_bound")) << doc["findings"].dump(1);
  // The A100's "busy but idle" numbers are not GPM's: it has none.
  EXPECT_FALSE(gpu4.count("utilization.sm_idle")) << doc["findings"].dump(1);
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "pcie.transfer_bound") continue;
    EXPECT_NE(f.dump().find("(GPM)"), std::string::npos) << f.dump(1);
  }
}

TEST(GpmE2E, RulesListsTheGpmRules) {
  auto r = RunGpudoctor({"rules"}, "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* id : {"utilization.sm_idle", "precision.tensor_idle", "memory.bandwidth_bound",
                         "pcie.transfer_bound"}) {
    EXPECT_NE(r.out.find(id), std::string::npos) << id << "\n" << r.out;
  }
}

TEST(GpmE2E, AgentServesRecordsAndReportChartsGpm) {
  TempDir dir, root, data;
  root.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  const std::string scenario = dir.Write("gpm.json", GpmScenario());
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  ASSERT_GT(port, 0);
  {
    BackgroundProcess agent(
        GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root",
                       root.path().string(), "--interval", "200ms", "--window", "2s",
                       "--evaluate-every", "400ms", "--facts-every", "1h", "--no-kernel-log",
                       "--run-for", "60s", "--listen", "127.0.0.1:" + std::to_string(port)}),
        FakeNvmlEnv(scenario), (data.path() / "agent.log").string());
    ASSERT_TRUE(agent.started());
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(2);
    c.set_read_timeout(10);
    const std::string sm0 =
        "gpudoctor_gpu_sm_activity_ratio{gpu=\"0\",uuid=\"GPU-00000000-0000-0000-0000-"
        "000000000001\",pci_bus_id=\"0000:01:00.0\",model=\"NVIDIA H100 80GB HBM3\"} 0.145";
    std::string text;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < until) {
      if (auto r = c.Get("/metrics"); r && r->status == 200) {
        text = r->body;
        if (text.find(sm0) != std::string::npos) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    EXPECT_NE(text.find(sm0), std::string::npos) << text;
    EXPECT_NE(text.find("# TYPE gpudoctor_gpu_dram_bandwidth_ratio gauge"), std::string::npos);
    EXPECT_NE(text.find("gpudoctor_gpu_gpm_supported{gpu=\"4\""), std::string::npos);
    // The A100 has no SM activity series at all.
    EXPECT_EQ(text.find("gpudoctor_gpu_sm_activity_ratio{gpu=\"4\""), std::string::npos);
    // Enough samples for the window, then stop the agent.
    std::this_thread::sleep_for(std::chrono::seconds(3));
    agent.Signal(SIGTERM);
    EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);
  }
  auto report = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m",
                              "--format", "json", "--lang", "en"},
                             "");
  ASSERT_TRUE(report.exit_code >= 0 && report.exit_code <= 2) << report.err;
  json doc = json::parse(report.out);
  bool found = false;
  for (const auto& g : doc["gpus"]) {
    if (g["pci_bus_id"] != "0000:01:00.0") continue;
    found = true;
    EXPECT_DOUBLE_EQ(g["metrics"]["gpm_sm_activity_percent"]["max"].get<double>(), 14.5)
        << g.dump(1);
  }
  EXPECT_TRUE(found) << doc["gpus"].dump(1);
  auto html = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m",
                            "--format", "html", "--lang", "en"},
                           "");
  ASSERT_TRUE(html.exit_code >= 0 && html.exit_code <= 2) << html.err;
  EXPECT_NE(html.out.find("SM activity (GPM)"), std::string::npos);
  EXPECT_NE(html.out.find("data-metric=\"sm_activity\""), std::string::npos)
      << "a chart of its own";
}

}  // namespace
}  // namespace gpudoctor::test
