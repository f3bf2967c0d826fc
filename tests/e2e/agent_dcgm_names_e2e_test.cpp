// End-to-end: a real Prometheus (Debian package prometheus) scrapes
// `gpudoctor agent --metrics-names both` on the fake NVML; PromQL on
// dcgm-exporter's names returns the fake's values in dcgm-exporter's units
// and labels (FB in MiB, the Xid gauge of the last code, Hostname from
// $NODE_NAME), and gpudoctor's names are there too.
// A second test: a failing DCGM health watch served this way reaches
// `report --prometheus` as the gpu.dcgm_health finding.
#include <gtest/gtest.h>
#include <signal.h>

#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/test_prometheus.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

// One GPU, 4 GiB in use at 66 C, video engines and GPM busy, an Xid 13 (a
// graphics engine exception) after a second.
const char* kDcgmScenario = R"({"driver_version": "550.54.15", "gpus": [
  {"name": "NVIDIA H100 80GB HBM3", "temperature_c": 66, "power_draw_w": 312.5,
   "memory_total_bytes": 85899345920, "memory_used_bytes": 4294967296,
   "memory_free_bytes": 81604378624, "clocks_sm_mhz": 1755,
   "utilization_encoder_percent": 7, "utilization_decoder_percent": 9,
   "gpm_supported": true, "gpm_graphics_activity_percent": 50,
   "gpm_nvlink_tx_bytes_per_s": 102400000, "gpm_nvlink_rx_bytes_per_s": 102400000,
   "faults": [{"kind": "xid", "code": 13, "at_s": 1}]}
]})";

// A quiet host for the agent's --root.
void WriteQuietHost(const TempDir& root) {
  root.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
}

std::string ValueOf(const json& result) {
  return result.empty() ? "" : result[0]["value"][1].get<std::string>();
}

TEST(AgentDcgmNamesE2e, PrometheusReadsDcgmExporterNamesAndUnits) {
  if (!TestPrometheus::Installed()) {
    GTEST_SKIP() << "prometheus not installed (Debian package prometheus)";
  }
  TempDir root, data;
  WriteQuietHost(root);
  const int agent_port = FreeLoopbackPort();
  ASSERT_GT(agent_port, 0);
  auto env = FakeNvmlEnv(data.Write("s.json", kDcgmScenario));
  env["NODE_NAME"] = "e2e-node-3";
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root", root.path().string(),
                     "--interval", "200ms", "--facts-every", "1h", "--no-kernel-log", "--run-for",
                     "120s", "--metrics-names", "both", "--listen",
                     "127.0.0.1:" + std::to_string(agent_port)}),
      env, (data.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  TestPrometheus prometheus({"127.0.0.1:" + std::to_string(agent_port)});
  ASSERT_TRUE(prometheus.started());

  const json fb = ResultOf(prometheus.WaitForResult("DCGM_FI_DEV_FB_USED", std::chrono::seconds(60)));
  ASSERT_EQ(fb.size(), 1u) << fb.dump() << "\nsee " << prometheus.log_path();
  EXPECT_EQ(ValueOf(fb), "4096");  // MiB
  const json& labels = fb[0]["metric"];
  EXPECT_EQ(labels["gpu"], "0");
  EXPECT_EQ(labels["UUID"], "GPU-00000000-0000-0000-0000-000000000001");
  EXPECT_EQ(labels["pci_bus_id"], "00000000:01:00.0");
  EXPECT_EQ(labels["device"], "nvidia0");
  EXPECT_EQ(labels["modelName"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(labels["Hostname"], "e2e-node-3");
  EXPECT_EQ(labels["DCGM_FI_DRIVER_VERSION"], "550.54.15");
  EXPECT_EQ(labels["job"], "gpudoctor");

  EXPECT_EQ(ValueOf(ResultOf(prometheus.Query("DCGM_FI_DEV_GPU_TEMP"))), "66");
  EXPECT_EQ(ValueOf(ResultOf(prometheus.Query("DCGM_FI_DEV_POWER_USAGE"))), "312.5");
  EXPECT_EQ(ValueOf(ResultOf(prometheus.Query("DCGM_FI_DEV_SM_CLOCK"))), "1755");  // MHz
  // gpudoctor's own names are served beside them.
  EXPECT_EQ(ValueOf(ResultOf(prometheus.Query("gpudoctor_gpu_sm_clock_hertz"))), "1755000000");
  // A PromQL join across the two namings agrees on the GPU.
  EXPECT_EQ(ValueOf(ResultOf(prometheus.Query(
                "DCGM_FI_DEV_GPU_TEMP - on(gpu) gpudoctor_gpu_temperature_celsius"))),
            "0");
  const json xid = ResultOf(prometheus.WaitForResult("DCGM_FI_DEV_XID_ERRORS{err_code=\"13\"}",
                                                     std::chrono::seconds(30)));
  ASSERT_EQ(xid.size(), 1u) << xid.dump();
  EXPECT_EQ(ValueOf(xid), "13");
  EXPECT_EQ(xid[0]["metric"].value("err_msg", ""), "Graphics Engine Exception") << xid.dump();

  // The series dashboards newer than the fields query.
  EXPECT_EQ(ValueOf(ResultOf(prometheus.Query("DCGM_FI_DEV_ENC_UTIL"))), "7");
  EXPECT_EQ(ValueOf(ResultOf(prometheus.Query("DCGM_FI_DEV_DEC_UTIL"))), "9");
  EXPECT_EQ(ValueOf(ResultOf(prometheus.WaitForResult("DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                                                      std::chrono::seconds(30)))),
            "0.5");
  EXPECT_EQ(ValueOf(ResultOf(prometheus.WaitForResult("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                                                      std::chrono::seconds(30)))),
            "200");  // 2 x 100 MB/s in DCGM's KiB/s / 1000
  const json count = ResultOf(prometheus.WaitForResult(
      "DCGM_EXP_XID_ERRORS_COUNT{xid=\"13\",window_size_in_ms=\"300000\"}", std::chrono::seconds(30)));
  ASSERT_EQ(count.size(), 1u) << count.dump();
  EXPECT_EQ(ValueOf(count), "1");
  EXPECT_EQ(ValueOf(ResultOf(prometheus.Query("count(DCGM_EXP_GPU_HEALTH_STATUS)"))), "11");
  EXPECT_FALSE(ValueOf(ResultOf(prometheus.Query(
                   "count(DCGM_EXP_CLOCK_EVENTS_COUNT{window_size_in_ms=\"300000\"})")))
                   .empty());

  EXPECT_TRUE(prometheus.Stop());
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);
}

// DCGM_EXP_GPU_HEALTH_STATUS from a real Prometheus to `report --prometheus`:
// the agent serves `--metrics-names dcgm` on the fake NVML with a GPU in
// thermal slowdown near its shutdown temperature, so its THERMAL watch fails
// (20); Prometheus scrapes it keeping only the DCGM_* series (a metric
// relabelling drops gpudoctor's own), as it would hold a dcgm-exporter's;
// the report of that node names the gpu.dcgm_health finding with the
// failing watch.
// Thermal slowdown (the HW thermal reason) at 91 °C, 1 °C under shutdown:
// thermal.slowdown is critical from the first evaluation.
const char* kHealthScenario = R"({"driver_version": "550.54.15", "gpus": [
  {"name": "NVIDIA H100 80GB HBM3", "temperature_c": 91, "temperature_slowdown_c": 87,
   "temperature_shutdown_c": 92, "clock_event_reasons": ["hw_thermal_slowdown"]}
]})";

// Prometheus keeps only dcgm-exporter's names of this target.
const char* kOnlyDcgmNames =
    "    metric_relabel_configs:\n"
    "      - source_labels: [__name__]\n"
    "        regex: 'gpudoctor_.*'\n"
    "        action: drop\n";

TEST(AgentDcgmHealthE2e, AFailingWatchInPrometheusIsTheReportsDcgmHealthFinding) {
  if (!TestPrometheus::Installed()) {
    GTEST_SKIP() << "prometheus not installed (Debian package prometheus)";
  }
  TempDir root, data;
  WriteQuietHost(root);
  const int agent_port = FreeLoopbackPort();
  ASSERT_GT(agent_port, 0);
  const std::string target = "127.0.0.1:" + std::to_string(agent_port);
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root", root.path().string(),
                     "--interval", "200ms", "--window", "2s", "--evaluate-every", "400ms",
                     "--facts-every", "1h", "--no-kernel-log", "--run-for", "120s",
                     "--metrics-names", "dcgm", "--listen", target}),
      FakeNvmlEnv(data.Write("s.json", kHealthScenario)), (data.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  TestPrometheus prometheus({target}, {}, kOnlyDcgmNames);
  ASSERT_TRUE(prometheus.started());

  const json failing = ResultOf(prometheus.WaitForResult(
      "DCGM_EXP_GPU_HEALTH_STATUS{health_watch=\"THERMAL\"} == 20", std::chrono::seconds(60)));
  ASSERT_EQ(failing.size(), 1u) << failing.dump() << "\nsee " << prometheus.log_path();
  EXPECT_EQ(failing[0]["metric"].value("health_error_code", ""), "DCGM_FR_CLOCK_THROTTLE_THERMAL");
  // Only dcgm-exporter's names are in Prometheus: the report reads the node
  // as a dcgm-exporter, not as an agent with verdicts of its own.
  EXPECT_TRUE(ResultOf(prometheus.Query("gpudoctor_gpu_verdict")).empty());

  const std::string url = "http://127.0.0.1:" + std::to_string(prometheus.port());
  auto r = RunGpudoctor({"report", "--prometheus", url, "--node", target, "--since", "2m",
                         "--format", "json", "--lang", "en"},
                        "");
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out.substr(0, 2000);
  json doc = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out.substr(0, 2000);
  const json* health = nullptr;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "gpu.dcgm_health") health = &f;
  }
  ASSERT_NE(health, nullptr) << doc["findings"].dump(2);
  EXPECT_EQ((*health)["severity"], "critical") << health->dump(2);
  EXPECT_NE(health->dump().find("THERMAL"), std::string::npos) << health->dump(2);
  ASSERT_EQ((*health)["gpus"].size(), 1u);
  EXPECT_EQ((*health)["gpus"][0], "0000:01:00.0");

  EXPECT_TRUE(prometheus.Stop());
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);
}

}  // namespace
}  // namespace gpudoctor::test
