// End-to-end: the real gpudoctor binary, the real dlopen path, the fake NVML.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

int LineCount(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(StatusE2E, NoDriverLibrarySaysSoInOneLine) {
  ProcessOptions opts;
  opts.env["GPUDOCTOR_NVML_LIBRARY"] = "/nonexistent/libnvidia-ml.so.1";
  auto r = RunProcess({GPUDOCTOR_BINARY, "status"}, opts);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(LineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("no NVIDIA driver found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("install the NVIDIA driver"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(StatusE2E, BareCommandRunsStatusAndFailsCleanlyWithoutDriver) {
  ProcessOptions opts;
  opts.env["GPUDOCTOR_NVML_LIBRARY"] = "/nonexistent/libnvidia-ml.so.1";
  auto r = RunProcess({GPUDOCTOR_BINARY}, opts);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no NVIDIA driver found"), std::string::npos) << r.err;
}

TEST(StatusE2E, DriverNotLoadedGivesAdvice) {
  auto r = RunGpudoctor({"status"}, "");  // the fake without a scenario
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(LineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("NVML_ERROR_DRIVER_NOT_LOADED"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("modprobe nvidia"), std::string::npos) << r.err;
}

TEST(StatusE2E, VersionMismatchIsExplained) {
  TempDir dir;
  auto scenario = dir.Write("s.json", R"({"init_error": "NVML_ERROR_LIB_RM_VERSION_MISMATCH", "gpus": []})");
  auto r = RunGpudoctor({"status", "--json"}, scenario);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("version mismatch"), std::string::npos) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_EQ(doc["nvml_loaded"], false);
  EXPECT_EQ(doc["schema"], "gpudoctor.status/v1");
}

TEST(StatusE2E, HungInitEndsAtTheDeadline) {
  TempDir dir;
  auto scenario = dir.Write("s.json", R"({"init_delay_ms": 600000, "gpus": [{}]})");
  ProcessOptions opts;
  opts.timeout = std::chrono::seconds(60);
  auto r = RunGpudoctor({"--nvml-timeout", "300ms", "status"}, scenario, opts);
  ASSERT_FALSE(r.timed_out) << "gpudoctor hung with the driver";
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("did not answer nvmlInit_v2"), std::string::npos) << r.err;
}

TEST(StatusE2E, FourGpusOneLostOneHungOthersStillReported) {
  TempDir dir;
  auto scenario = dir.Write("s.json", R"({
    "driver_version": "550.54.15", "cuda_driver_version": 12040,
    "gpus": [
      {"name": "GPU A", "temperature_c": 40, "utilization_gpu_percent": 10},
      {"name": "GPU B", "faults": [{"at_s": 0, "kind": "lost"}]},
      {"name": "GPU C", "faults": [{"at_s": 0, "kind": "hang"}]},
      {"name": "GPU D", "temperature_c": 70, "power_draw_w": 250.5, "power_limit_w": 300}
    ]})");
  ProcessOptions opts;
  opts.timeout = std::chrono::seconds(60);
  auto r = RunGpudoctor({"--nvml-timeout", "500ms", "status", "--json"}, scenario, opts);
  ASSERT_FALSE(r.timed_out) << "gpudoctor hung with the driver";
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto doc = json::parse(r.out);
  ASSERT_EQ(doc["gpus"].size(), 4u);
  EXPECT_EQ(doc["driver_version"], "550.54.15");
  EXPECT_EQ(doc["cuda_driver_version"], "12.4");
  EXPECT_EQ(doc["gpus"][0]["state"], "ok");
  EXPECT_EQ(doc["gpus"][0]["temperature_c"], 40);
  EXPECT_EQ(doc["gpus"][1]["state"], "lost");
  EXPECT_NE(doc["gpus"][1]["state_detail"].get<std::string>().find("fallen off the bus"),
            std::string::npos);
  EXPECT_EQ(doc["gpus"][2]["state"], "hung");
  EXPECT_NE(doc["gpus"][2]["state_detail"].get<std::string>().find("500 ms"), std::string::npos);
  EXPECT_EQ(doc["gpus"][3]["state"], "ok");
  EXPECT_EQ(doc["gpus"][3]["name"], "GPU D");
  EXPECT_DOUBLE_EQ(doc["gpus"][3]["power_draw_w"].get<double>(), 250.5);
  EXPECT_EQ(doc["gpus"][3]["power_limit_w"], 300.0);
}

TEST(StatusE2E, UnsupportedIsNullAndRefusedIsExplained) {
  TempDir dir;
  auto scenario = dir.Write("s.json", R"({
    "driver_version": "535.183.01", "cuda_driver_version": 12020,
    "gpus": [{"name": "G", "fan_speed_percent": null, "power_draw_w": 100,
              "faults": [{"kind": "error", "field": "power_draw_w", "error": "NVML_ERROR_NO_PERMISSION"}]}]})");
  auto r = RunGpudoctor({"status", "--json"}, scenario);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto gpu = json::parse(r.out)["gpus"][0];
  EXPECT_TRUE(gpu["fan_speed_percent"].is_null());
  EXPECT_TRUE(gpu["power_draw_w"].is_null());
  EXPECT_NE(gpu["field_errors"]["power_draw_w"].get<std::string>().find("permission denied"),
            std::string::npos);
  EXPECT_FALSE(gpu["field_errors"].contains("fan_speed_percent"));
}

TEST(StatusE2E, GpuSelectionByIndexUuidAndBusId) {
  TempDir dir;
  auto scenario = dir.Write("s.json", R"({"driver_version": "550.54.15", "gpus": [
      {"name": "A", "uuid": "GPU-aaaaaaaa-0000-0000-0000-000000000000", "pci_bus_id": "0000:3b:00.0"},
      {"name": "B", "uuid": "GPU-bbbbbbbb-0000-0000-0000-000000000000", "pci_bus_id": "0000:86:00.0"}]})");
  auto by_index = RunGpudoctor({"status", "--json", "--gpu", "1"}, scenario);
  ASSERT_EQ(by_index.exit_code, 0) << by_index.err;
  auto doc = json::parse(by_index.out);
  ASSERT_EQ(doc["gpus"].size(), 1u);
  EXPECT_EQ(doc["gpus"][0]["name"], "B");
  auto by_bus = RunGpudoctor({"status", "--json", "--gpu", "00000000:3B:00.0"}, scenario);
  EXPECT_EQ(json::parse(by_bus.out)["gpus"][0]["name"], "A");
  auto by_uuid = RunGpudoctor({"status", "--json", "--gpu", "GPU-BBBBBBBB-0000-0000-0000-000000000000"}, scenario);
  EXPECT_EQ(json::parse(by_uuid.out)["gpus"][0]["name"], "B");
  auto unknown = RunGpudoctor({"status", "--gpu", "7"}, scenario);
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_NE(unknown.err.find("--gpu 7"), std::string::npos);
}

TEST(StatusE2E, TableMarksWhatIsAbnormal) {
  TempDir dir;
  auto scenario = dir.Write("s.json", R"({"driver_version": "550.54.15", "cuda_driver_version": 12040,
    "gpus": [{"name": "NVIDIA H100 80GB HBM3", "temperature_c": 91, "temperature_slowdown_c": 95,
              "clock_event_reasons": ["hw_thermal_slowdown"], "pcie_link_width_current": 8,
              "pcie_link_width_max": 16, "utilization_gpu_percent": 97,
              "memory_total_bytes": 85899345920, "memory_used_bytes": 83751862272,
              "processes": [{"pid": 4242, "name": "python3", "used_memory_bytes": 83751862272}]}]})");
  auto r = RunGpudoctor({"status"}, scenario);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("NVIDIA H100 80GB HBM3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Driver 550.54.15"), std::string::npos);
  EXPECT_NE(r.out.find("CUDA 12.4"), std::string::npos);
  EXPECT_NE(r.out.find("[critical] GPU 0: clocks slowed: HW thermal slowdown active"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x8 below its max x16"), std::string::npos);
  EXPECT_NE(r.out.find("temperature 91"), std::string::npos);
  EXPECT_NE(r.out.find("python3"), std::string::npos);
  EXPECT_NE(r.out.find("4242"), std::string::npos);
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos) << "no colour when not a TTY";
}

TEST(StatusE2E, BadOptionIsExitCodeThree) {
  auto r = RunGpudoctor({"status", "--frobnicate"}, "");
  EXPECT_EQ(r.exit_code, 3);
  auto t = RunGpudoctor({"--nvml-timeout", "soon", "status"}, "");
  EXPECT_EQ(t.exit_code, 3);
  EXPECT_NE(t.err.find("invalid duration 'soon'"), std::string::npos) << t.err;
}

// A GPU in hardware thermal slowdown is critical in the same reading's
// list of anomalies, so its State is not "ok", nor is its JSON verdict; a
// lost GPU's state says why. (Before: State "ok" beside "[critical] GPU 0:
// clocks slowed".)
TEST(StatusE2E, StateAgreesWithTheAbnormalList) {
  const std::string scenario = std::string(TEST_DATA_DIR) + "/scenarios/trouble.json";
  auto doc_run = RunGpudoctor({"status", "--json"}, scenario);
  ASSERT_TRUE(doc_run.exit_code == 0 || doc_run.exit_code == 1) << doc_run.err;
  json doc = json::parse(doc_run.out);
  ASSERT_EQ(doc["gpus"].size(), 3u) << doc_run.out;
  EXPECT_EQ(doc["gpus"][0]["state"], "ok");
  EXPECT_EQ(doc["gpus"][0]["verdict"], "critical") << doc["gpus"][0].dump();

  ProcessOptions wide;
  wide.env["COLUMNS"] = "200";
  auto table = RunGpudoctor({"status", "--wide"}, scenario, wide);
  ASSERT_TRUE(table.exit_code == 0 || table.exit_code == 1) << table.err;
  ASSERT_NE(table.out.find("[critical] GPU 0"), std::string::npos) << table.out;
  std::istringstream lines(table.out);
  std::string line;
  bool row_seen = false;
  while (std::getline(lines, line)) {
    if (line.find("18:00.0") == std::string::npos) continue;
    row_seen = true;
    EXPECT_NE(line.find(" critical "), std::string::npos) << line;
    EXPECT_EQ(line.find(" ok "), std::string::npos) << line;
  }
  EXPECT_TRUE(row_seen) << table.out;
}

}  // namespace
}  // namespace gpudoctor::test
