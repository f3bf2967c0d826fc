// End-to-end: the NVLink fabric through the fake NVML. Eight H100s of an
// HGX board (tests/data/scenarios/eight_gpus.json) with each fabric fault
// written into the scenario: `diagnose` finds it and `status --json` shows
// the fabric and the NVLink P2P matrix; the healthy board and a single PCIe
// card whose fabric is "not supported" stay OK.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <nlohmann/json.hpp>

#include "support/background_process.h"
#include "support/fake_host.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace diagnose_nvlink_fabric_test_ns {

using nlohmann::json;

const std::vector<std::string> kBusIds = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0",
                                          "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0",
                                          "0000:ba:00.0", "0000:db:00.0"};

json EightOnFabric() {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/scenarios/eight_gpus.json");
  json s = json::parse(in);
  for (json& g : s["gpus"]) {
    g["fabric"] = {{"state", "completed"},
                   {"degraded_bandwidth", false},
                   {"route_recovery", false},
                   {"route_unhealthy", false},
                   {"access_timeout_recovery", false}};
  }
  return s;
}

class NvlinkFabricE2e : public ::testing::Test {
 protected:
  void SetUp() override { WriteQuietHost(root_, kBusIds); }

  json Run(const json& scenario, const std::vector<std::string>& args) {
    const std::string path = dir_.Write("scenario.json", scenario.dump(2));
    ProcessOptions o;
    o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
    auto r = RunGpudoctor(args, path, o);
    EXPECT_LE(r.exit_code, 2) << r.err;
    json doc = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << r.out << r.err;
    return doc;
  }
  json Diagnose(const json& scenario) {
    return Run(scenario, {"diagnose", "--root", root_.path().string(), "--duration", "1s",
                          "--interval", "500ms", "--lang", "en", "--format", "json"});
  }
  json Status(const json& scenario) {
    return Run(scenario, {"status", "--json", "--root", root_.path().string()});
  }

  std::vector<json> FabricFindings(const json& doc) {
    std::vector<json> out;
    for (const auto& f : doc["findings"]) {
      if (std::string(f["id"]).rfind("nvlink.fabric", 0) == 0) out.push_back(f);
    }
    return out;
  }

  TempDir root_;
  TempDir dir_;
};

TEST_F(NvlinkFabricE2e, HealthyBoardStaysOkAndStatusShowsTheFabric) {
  json scenario = EightOnFabric();
  EXPECT_TRUE(FabricFindings(Diagnose(scenario)).empty());
  json status = Status(scenario);
  ASSERT_EQ(status["gpus"].size(), 8u);
  const json& g = status["gpus"][2];
  EXPECT_EQ(g["fabric"]["state"], "completed");
  EXPECT_EQ(g["fabric"]["status"], "Success");
  EXPECT_EQ(g["fabric"]["health_mask"], 0xAA);  // the four fields FALSE (2 each)
  EXPECT_EQ(g["fabric"]["route_unhealthy"], false);
  ASSERT_EQ(g["nvlink_peers"].size(), 7u);
  EXPECT_EQ(g["nvlink_peers"][0]["peer_pci_bus_id"], "0000:18:00.0");
  EXPECT_EQ(g["nvlink_peers"][0]["status"], "ok");
  EXPECT_EQ(status["fabric"]["nvlink_fabric_registered"], 8);
  const std::string path = dir_.Write("healthy.json", scenario.dump(2));
  auto text = RunGpudoctor({"status", "--root", root_.path().string()}, path);
  EXPECT_NE(text.out.find("fabric: NVLink 8/8 GPUs registered"), std::string::npos) << text.out;
}

TEST_F(NvlinkFabricE2e, EachRegistrationFault) {
  struct Case {
    json fabric;
    std::string words;
  };
  const Case cases[] = {
      {{{"state", "not_started"}}, "has not registered"},
      {{{"state", "in_progress"}}, "stuck registering"},
      {{{"state", "completed"}, {"status", "NVML_ERROR_INSUFFICIENT_RESOURCES"}},
       "failed to register"},
  };
  for (const Case& c : cases) {
    json scenario = EightOnFabric();
    scenario["gpus"][4]["fabric"] = c.fabric;
    auto found = FabricFindings(Diagnose(scenario));
    ASSERT_EQ(found.size(), 1u) << c.words;
    EXPECT_EQ(found[0]["id"], "nvlink.fabric_registration");
    EXPECT_EQ(found[0]["severity"], "critical");
    EXPECT_NE(found[0]["title"].get<std::string>().find(c.words), std::string::npos)
        << found[0]["title"];
    EXPECT_EQ(found[0]["gpus"], json::array({"0000:9a:00.0"}));
  }
  json status_doc = Status([] {
    json s = EightOnFabric();
    s["gpus"][4]["fabric"] = {{"state", "in_progress"}};
    return s;
  }());
  EXPECT_EQ(status_doc["gpus"][4]["fabric"]["state"], "in_progress");
}

TEST_F(NvlinkFabricE2e, InProgressJustAfterBootIsOnlyInfo) {
  std::filesystem::create_directories(root_.path() / "proc");
  std::ofstream(root_.path() / "proc/uptime") << "42.17 300.02\n";
  json scenario = EightOnFabric();
  scenario["gpus"][0]["fabric"] = {{"state", "in_progress"}};
  auto found = FabricFindings(Diagnose(scenario));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]["severity"], "info");
}

TEST_F(NvlinkFabricE2e, EachHealthBit) {
  for (const char* bit : {"degraded_bandwidth", "route_recovery", "route_unhealthy",
                          "access_timeout_recovery"}) {
    json scenario = EightOnFabric();
    scenario["gpus"][1]["fabric"][bit] = true;
    scenario["gpus"][6]["fabric"][bit] = true;
    json doc = Diagnose(scenario);
    auto found = FabricFindings(doc);
    ASSERT_EQ(found.size(), 1u) << bit << doc["findings"].dump(2);  // folded: two GPUs
    EXPECT_EQ(found[0]["id"], "nvlink.fabric_health");
    EXPECT_EQ(found[0]["gpus"].size(), 2u);
    EXPECT_EQ(found[0]["severity"], std::string(bit) == "route_unhealthy" ? "critical" : "warning");
  }
}

TEST_F(NvlinkFabricE2e, OlderDriversReportFewerHealthBits) {
  json scenario = EightOnFabric();
  scenario["driver_profile"] = "550.90.07";  // R550: degraded bandwidth only
  scenario["gpus"][1]["fabric"]["route_unhealthy"] = true;
  EXPECT_TRUE(FabricFindings(Diagnose(scenario)).empty());
  json status = Status(scenario);
  EXPECT_EQ(status["gpus"][1]["fabric"]["health_mask"], 0x2);
  EXPECT_TRUE(status["gpus"][1]["fabric"]["route_unhealthy"].is_null());
  // R535 has only the first call: no health at all, but the state.
  scenario["driver_profile"] = "535.183.01";
  status = Status(scenario);
  EXPECT_EQ(status["gpus"][1]["fabric"]["state"], "completed");
  EXPECT_TRUE(status["gpus"][1]["fabric"]["health_mask"].is_null());
  // R470 has neither.
  scenario["driver_profile"] = "470.256.02";
  EXPECT_TRUE(Status(scenario)["gpus"][1]["fabric"].is_null());
}

// Version 3 (R580, CUDA 13.0) adds the health summary; before it the reader
// falls back to version 2 and the summary stays unknown.
TEST_F(NvlinkFabricE2e, TheHealthSummaryOfVersion3) {
  json scenario = EightOnFabric();
  scenario["cuda_driver_version"] = 13000;
  for (json& g : scenario["gpus"]) g["fabric"]["health_summary"] = "healthy";
  EXPECT_TRUE(FabricFindings(Diagnose(scenario)).empty());
  EXPECT_EQ(Status(scenario)["gpus"][3]["fabric"]["health_summary"], "healthy");
  for (const char* summary : {"unhealthy", "limited_capacity"}) {
    scenario["gpus"][3]["fabric"]["health_summary"] = summary;
    json doc = Diagnose(scenario);
    auto found = FabricFindings(doc);
    ASSERT_EQ(found.size(), 1u) << summary << doc["findings"].dump(2);
    EXPECT_EQ(found[0]["id"], "nvlink.fabric_health");
    EXPECT_EQ(found[0]["severity"], std::string(summary) == "unhealthy" ? "critical" : "warning");
    EXPECT_EQ(found[0]["gpus"], json::array({"0000:5d:00.0"}));
  }
  // A mask field naming the condition makes the finding; the summary is its evidence.
  scenario["gpus"][3]["fabric"]["health_summary"] = "unhealthy";
  scenario["gpus"][3]["fabric"]["route_unhealthy"] = true;
  auto found = FabricFindings(Diagnose(scenario));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].dump().find("fabric health summary: unhealthy"), std::string::npos) << found[0].dump();
  // R570 (CUDA 12.8) answers version 2 only: the summary is unknown, nothing found from it.
  scenario["cuda_driver_version"] = 12080;
  scenario["gpus"][3]["fabric"]["route_unhealthy"] = false;
  EXPECT_TRUE(FabricFindings(Diagnose(scenario)).empty());
  json status = Status(scenario);
  EXPECT_TRUE(status["gpus"][3]["fabric"]["health_summary"].is_null());
  EXPECT_EQ(status["gpus"][3]["fabric"]["state"], "completed");
}

TEST_F(NvlinkFabricE2e, PairsWithoutNvlinkP2pAreOneFinding) {
  json scenario = EightOnFabric();
  scenario["gpus"][3]["nvlink_p2p"] = "not_supported";
  for (int i = 0; i < 8; ++i) {
    if (i != 3) scenario["gpus"][i]["nvlink_p2p"] = {{"3", "not_supported"}};
  }
  json doc = Diagnose(scenario);
  auto found = FabricFindings(doc);
  ASSERT_EQ(found.size(), 1u) << doc["findings"].dump(2);
  EXPECT_EQ(found[0]["id"], "nvlink.fabric_peers");
  EXPECT_EQ(found[0]["severity"], "critical");
  EXPECT_NE(found[0]["evidence"].dump().find("0-3, 1-3, 2-3, 3-4"), std::string::npos)
      << found[0]["evidence"].dump();
  json status = Status(scenario);
  EXPECT_EQ(status["gpus"][3]["nvlink_peers"][0]["status"], "not_supported");
}

TEST_F(NvlinkFabricE2e, APcieCardWithoutFabricStaysOk) {
  json scenario = {{"gpus", json::array({{{"name", "NVIDIA L40S"},
                                          {"pci_bus_id", "0000:18:00.0"},
                                          {"fabric", {{"state", "not_supported"}}}}})}};
  json doc = Diagnose(scenario);
  EXPECT_TRUE(FabricFindings(doc).empty());
  json status = Status(scenario);
  EXPECT_TRUE(status["gpus"][0]["fabric"]["state"] == "not_supported" ||
              status["gpus"][0]["fabric"].is_null());
  EXPECT_TRUE(status["gpus"][0]["nvlink_peers"].empty());
}

TEST_F(NvlinkFabricE2e, TheAgentFindsAnUnregisteredGpu) {
  json scenario = EightOnFabric();
  scenario["gpus"][4]["fabric"] = {{"state", "not_started"}};
  const std::string path = dir_.Write("agent.json", scenario.dump(2));
  TempDir data;
  root_.Write("proc/sys/kernel/random/boot_id", "6b1d0a0e-0000-4000-8000-000000000003\n");
  const auto log = data.path() / "agent.log";
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root", root_.path().string(),
                     "--interval", "200ms", "--window", "5s", "--evaluate-every", "400ms",
                     "--facts-every", "1h", "--log-level", "debug", "--no-listen",
                     "--no-kernel-log", "--no-nvml-events"}),
      FakeNvmlEnv(path), log.string());
  ASSERT_TRUE(agent.started());
  auto text = [&] {
    std::ifstream in(log);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline &&
         text().find("finding started: nvlink.fabric_registration") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_NE(text().find("finding started: nvlink.fabric_registration"), std::string::npos) << text();
  EXPECT_EQ(text().find("finding started: nvlink.fabric_peers"), std::string::npos);
  agent.Signal(SIGTERM);
  int status = agent.Wait(std::chrono::seconds(15));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace diagnose_nvlink_fabric_test_ns
}  // namespace gpudoctor::test
