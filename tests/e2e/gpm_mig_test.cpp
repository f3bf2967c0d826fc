// End-to-end: MIG devices and their GPU instances' GPM metrics on the fake
// NVML (nvmlDeviceGetMigDeviceHandleByIndex, nvmlGpmMigSampleGet): in
// `status --json` and on the agent's /metrics.
#include <gtest/gtest.h>

#include <sstream>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

constexpr std::int64_t kMigGiB = 1024LL * 1024 * 1024;

// An H100 in MIG mode: GPU instance 1 (one compute instance) busy, GPU
// instance 2 (two compute instances) nearly idle; a second H100 without MIG.
std::string MigScenario() {
  return R"({"gpus": [
    {"name": "NVIDIA H100 80GB HBM3", "gpm_supported": true, "mig_mode_enabled": true,
     "mig_devices": [
       {"gpu_instance_id": 1, "compute_instance_id": 0,
        "uuid": "MIG-11111111-1111-1111-1111-111111111111",
        "name": "NVIDIA H100 80GB HBM3 MIG 3g.40gb",
        "memory_total_bytes": 42949672960, "memory_used_bytes": 32212254720,
        "memory_free_bytes": 10737418240,
        "gpm_sm_activity_percent": 82.5, "gpm_tensor_activity_percent": 61,
        "gpm_dram_bandwidth_percent": 44},
       {"gpu_instance_id": 2, "compute_instance_id": 0,
        "uuid": "MIG-22222222-2222-2222-2222-222222222222",
        "name": "NVIDIA H100 80GB HBM3 MIG 2g.20gb",
        "memory_total_bytes": 21474836480, "memory_used_bytes": 1073741824,
        "memory_free_bytes": 20401094656, "gpm_sm_activity_percent": 3},
       {"gpu_instance_id": 2, "compute_instance_id": 1,
        "uuid": "MIG-33333333-3333-3333-3333-333333333333",
        "name": "NVIDIA H100 80GB HBM3 MIG 2g.20gb",
        "memory_total_bytes": 21474836480, "memory_used_bytes": 1073741824,
        "memory_free_bytes": 20401094656, "gpm_sm_activity_percent": 99}
     ]},
    {"name": "NVIDIA H100 80GB HBM3", "gpm_supported": true, "gpm_sm_activity_percent": 50}
  ]})";
}

TEST(GpmMigE2E, StatusJsonListsMigDevicesWithTheirInstancesGpm) {
  TempDir dir;
  auto r = RunGpudoctor({"status", "--json"}, dir.Write("mig.json", MigScenario()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["gpus"].size(), 2u);
  const json& migs = doc["gpus"][0]["mig_devices"];
  ASSERT_EQ(migs.size(), 3u) << doc["gpus"][0].dump();
  EXPECT_EQ(migs[0]["gpu_instance_id"], 1);
  EXPECT_EQ(migs[0]["compute_instance_id"], 0);
  EXPECT_EQ(migs[0]["uuid"], "MIG-11111111-1111-1111-1111-111111111111");
  EXPECT_EQ(migs[0]["name"], "NVIDIA H100 80GB HBM3 MIG 3g.40gb");
  EXPECT_EQ(migs[0]["profile"], "3g.40gb");
  EXPECT_EQ(migs[1]["profile"], "2g.20gb");
  EXPECT_EQ(migs[0]["memory_total_bytes"], 40 * kMigGiB);
  EXPECT_EQ(migs[0]["memory_used_bytes"], 30 * kMigGiB);
  EXPECT_EQ(migs[0]["gpm_sm_activity_percent"], 82.5);
  EXPECT_EQ(migs[0]["gpm_tensor_activity_percent"], 61.0);
  EXPECT_EQ(migs[0]["gpm_dram_bandwidth_percent"], 44.0);
  EXPECT_TRUE(migs[0]["gpm_fp64_activity_percent"].is_null());
  // GPM is per GPU instance: both compute instances of instance 2 show its
  // metrics (the scenario's first entry for it), not their own.
  EXPECT_EQ(migs[1]["gpu_instance_id"], 2);
  EXPECT_EQ(migs[1]["gpm_sm_activity_percent"], 3.0);
  EXPECT_EQ(migs[2]["compute_instance_id"], 1);
  EXPECT_EQ(migs[2]["gpm_sm_activity_percent"], 3.0);
  EXPECT_EQ(migs[2]["uuid"], "MIG-33333333-3333-3333-3333-333333333333");
  for (const auto& m : migs) EXPECT_TRUE(m["field_errors"].empty()) << m.dump();
  EXPECT_TRUE(doc["gpus"][0]["field_errors"].empty()) << doc["gpus"][0]["field_errors"].dump();
  // Without MIG mode: no MIG devices.
  EXPECT_TRUE(doc["gpus"][1]["mig_devices"].empty());
  EXPECT_EQ(doc["gpus"][1]["gpm_sm_activity_percent"], 50.0);

  // The status table lists them, one line each.
  auto text = RunGpudoctor({"status"}, dir.Write("mig2.json", MigScenario()));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const auto at = text.out.find("MIG devices:");
  ASSERT_NE(at, std::string::npos) << text.out;
  const auto line_at = text.out.find("MIG-11111111-1111-1111-1111-111111111111", at);
  ASSERT_NE(line_at, std::string::npos) << text.out;
  const std::string line = text.out.substr(line_at, text.out.find('\n', line_at) - line_at);
  EXPECT_NE(line.find("30720 MiB / 40960 MiB"), std::string::npos) << line;
  EXPECT_NE(line.find("82"), std::string::npos) << line;
}

// Each process names the MIG instance it runs in (NVML's gpuInstanceId and
// computeInstanceId); outside MIG mode both are null.
TEST(GpmMigE2E, StatusJsonNamesTheGpuInstanceOfEachProcess) {
  TempDir dir;
  const std::string scenario = R"({"gpus": [
    {"name": "NVIDIA H100 80GB HBM3", "mig_mode_enabled": true,
     "mig_devices": [
       {"gpu_instance_id": 1, "compute_instance_id": 0, "uuid": "MIG-11111111-1111-1111-1111-111111111111",
        "name": "NVIDIA H100 80GB HBM3 MIG 3g.40gb"},
       {"gpu_instance_id": 2, "compute_instance_id": 1, "uuid": "MIG-33333333-3333-3333-3333-333333333333",
        "name": "NVIDIA H100 80GB HBM3 MIG 2g.20gb"}],
     "processes": [
       {"pid": 4242, "name": "python3", "used_memory_bytes": 1073741824,
        "gpu_instance_id": 2, "compute_instance_id": 1},
       {"pid": 4343, "name": "trainer", "used_memory_bytes": 2147483648,
        "gpu_instance_id": 1, "compute_instance_id": 0}]},
    {"name": "NVIDIA H100 80GB HBM3",
     "processes": [{"pid": 4444, "name": "python3", "used_memory_bytes": 1073741824}]}
  ]})";
  auto r = RunGpudoctor({"status", "--json"}, dir.Write("mig-procs.json", scenario));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["gpus"].size(), 2u);
  const json& procs = doc["gpus"][0]["processes"];
  ASSERT_EQ(procs.size(), 2u) << doc["gpus"][0].dump();
  for (const json& p : procs) {
    ASSERT_TRUE(p.contains("gpu_instance_id") && p.contains("compute_instance_id")) << p.dump();
    if (p["pid"] == 4242) {
      EXPECT_EQ(p["gpu_instance_id"], 2) << p.dump();
      EXPECT_EQ(p["compute_instance_id"], 1) << p.dump();
    } else {
      EXPECT_EQ(p["pid"], 4343) << p.dump();
      EXPECT_EQ(p["gpu_instance_id"], 1) << p.dump();
      EXPECT_EQ(p["compute_instance_id"], 0) << p.dump();
    }
  }
  const json& plain = doc["gpus"][1]["processes"];
  ASSERT_EQ(plain.size(), 1u) << doc["gpus"][1].dump();
  ASSERT_TRUE(plain[0].contains("gpu_instance_id")) << plain[0].dump();
  EXPECT_TRUE(plain[0]["gpu_instance_id"].is_null()) << plain[0].dump();
  EXPECT_TRUE(plain[0]["compute_instance_id"].is_null()) << plain[0].dump();
}

TEST(GpmMigE2E, MigDevicesWithoutGpmHaveNullMetrics) {
  TempDir dir;
  // An A100 in MIG mode: MIG devices, but no GPM before Hopper.
  auto r = RunGpudoctor(
      {"status", "--json"},
      dir.Write("a100.json", R"({"gpus": [{"name": "NVIDIA A100-SXM4-80GB", "gpm_supported": true,
        "mig_mode_enabled": true, "mig_devices": [{"gpu_instance_id": 7, "uuid": "MIG-7",
        "memory_total_bytes": 10737418240, "memory_used_bytes": 0, "memory_free_bytes": 10737418240,
        "gpm_sm_activity_percent": 50}]}]})"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  const json& migs = doc["gpus"][0]["mig_devices"];
  ASSERT_EQ(migs.size(), 1u);
  EXPECT_EQ(migs[0]["gpu_instance_id"], 7);
  EXPECT_TRUE(migs[0]["compute_instance_id"].is_null());
  EXPECT_EQ(migs[0]["memory_total_bytes"], 10 * kMigGiB);
  EXPECT_TRUE(migs[0]["gpm_sm_activity_percent"].is_null());
}

TEST(GpmMigE2E, AgentServesMigSeries) {
  TempDir dir, root, data;
  root.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  const std::string scenario = dir.Write("mig.json", MigScenario());
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  ASSERT_GT(port, 0);
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root", root.path().string(),
                     "--interval", "200ms", "--window", "2s", "--evaluate-every", "400ms",
                     "--facts-every", "1h", "--no-kernel-log", "--run-for", "60s",
                     "--metrics-names", "both", "--listen", "127.0.0.1:" + std::to_string(port)}),
      FakeNvmlEnv(scenario), (data.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  c.set_read_timeout(10);
  const std::string busy =
      "gpudoctor_mig_sm_activity_ratio{gpu=\"0\",uuid=\"GPU-00000000-0000-0000-0000-"
      "000000000001\",pci_bus_id=\"0000:01:00.0\",model=\"NVIDIA H100 80GB HBM3\","
      "gpu_instance=\"1\",compute_instance=\"0\",mig_uuid=\"MIG-11111111-1111-1111-1111-"
      "111111111111\"} 0.825";
  std::string text;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < until) {
    if (auto r = c.Get("/metrics"); r && r->status == 200) {
      text = r->body;
      if (text.find(busy) != std::string::npos) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_NE(text.find(busy), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE gpudoctor_mig_memory_used_bytes gauge"), std::string::npos);
  EXPECT_NE(text.find("mig_uuid=\"MIG-33333333-3333-3333-3333-333333333333\"} 0.03"),
            std::string::npos);
  // In dcgm-exporter's names, each GPU instance once (instance 2 has two
  // compute instances), with its profile from the MIG device's name.
  EXPECT_NE(text.find(",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"} 30720"), std::string::npos)
      << text;
  const std::string instance_two = ",GPU_I_PROFILE=\"2g.20gb\",GPU_I_ID=\"2\"} 1024";
  const auto at = text.find("DCGM_FI_DEV_FB_USED{");
  ASSERT_NE(at, std::string::npos) << text;
  const auto end = text.find("# HELP", at);
  const std::string fb_used = text.substr(at, end - at);
  const auto two = fb_used.find(instance_two);
  EXPECT_NE(two, std::string::npos) << fb_used;
  EXPECT_EQ(fb_used.find(instance_two, two + 1), std::string::npos) << fb_used;
  // GPU 0 is served per instance only, GPU 1 (no MIG) whole.
  std::istringstream lines(text);
  int gpu0 = 0, gpu1 = 0;
  for (std::string l; std::getline(lines, l);) {
    if (l.starts_with("DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\"")) {
      ++gpu0;
      EXPECT_NE(l.find("GPU_I_ID="), std::string::npos) << l;
    }
    if (l.starts_with("DCGM_FI_PROF_SM_ACTIVE{gpu=\"1\"")) {
      ++gpu1;
      EXPECT_EQ(l.find("GPU_I_ID="), std::string::npos) << l;
    }
  }
  EXPECT_EQ(gpu0, 2) << text;
  EXPECT_EQ(gpu1, 1) << text;
  // The GPU without MIG has no MIG series.
  EXPECT_EQ(text.find("gpudoctor_mig_sm_activity_ratio{gpu=\"1\""), std::string::npos);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // a few recorded samples
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);

  // The store kept the MIG devices: the report charts each GPU instance.
  auto html = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m",
                            "--format", "html", "--lang", "en"},
                           "");
  ASSERT_TRUE(html.exit_code >= 0 && html.exit_code <= 2) << html.err;
  EXPECT_NE(html.out.find("data-metric=\"mig_sm_activity\""), std::string::npos);
  EXPECT_NE(html.out.find("SM activity per MIG GPU instance (GPM)"), std::string::npos);
  EXPECT_NE(html.out.find("GPU instance 1"), std::string::npos);
  EXPECT_NE(html.out.find("GPU instance 2"), std::string::npos);
  // Only GPU 0 is in MIG mode: one such chart (figure).
  const std::string figure = "<figure class=\"chart-box\" data-metric=\"mig_sm_activity\"";
  const auto first = html.out.find(figure);
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(html.out.find(figure, first + 1), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::test
