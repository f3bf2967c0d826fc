// End-to-end: the agent records the RDMA ports of a --root tree holding the
// real HGX H100 /sys/class/infiniband capture (../shared/fixtures/infiniband)
// while the test scripts a flap of mlx5_4 and its symbol errors rising; then
// `report` over the store (JSON and HTML) marks the flap on the timeline,
// charts the port's error rate and finds what the agent found.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "support/background_process.h"
#include "support/fake_host.h"
#include "support/infiniband_tree.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace report_fabric_test_ns {

std::string TextOf(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Written aside and renamed over the file, so that the agent never reads a
// file cut short (an empty state would be a change of its own).
void WriteMlx4(const TempDir& root, const std::string& file, const std::string& text) {
  const auto path = InfinibandPort(root.path(), "mlx5_4") / file;
  const auto aside = root.path() / "aside.tmp";  // outside the port's directories
  std::ofstream(aside, std::ios::trunc) << text << "\n";
  std::filesystem::rename(aside, path);
}

bool WaitForLine(const std::filesystem::path& path, const std::string& what,
                 std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (TextOf(path).find(what) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

TEST(ReportFabricE2E, RecordedFlapAndSymbolErrorsShowInTheReport) {
  TempDir root, data;
  WriteQuietHost(root, {"0000:18:00.0", "0000:19:00.0"});
  root.Write("proc/sys/kernel/random/boot_id", "6b1d0a0e-0000-4000-8000-000000000003\n");
  if (!CopyInfinibandCapture(root.path())) GTEST_SKIP() << "../shared/fixtures/infiniband missing";
  const auto log = data.path() / "agent.log";
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root", root.path().string(),
                     "--interval", "200ms", "--window", "5s", "--evaluate-every", "400ms",
                     "--facts-every", "1h", "--log-level", "debug", "--no-listen",
                     "--no-kernel-log", "--no-nvml-events"}),
      FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/healthy_busy.json"), log.string());
  ASSERT_TRUE(agent.started());
  ASSERT_TRUE(WaitForLine(log, "recording every", std::chrono::seconds(30))) << TextOf(log);
  // Ports are read every 400 ms: each state lasts several readings.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  WriteMlx4(root, "state", "1: DOWN");
  WriteMlx4(root, "phys_state", "2: Polling");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // several readings, even under load
  WriteMlx4(root, "state", "4: ACTIVE");
  WriteMlx4(root, "phys_state", "5: LinkUp");
  for (int step = 1; step <= 6; ++step) {
    WriteMlx4(root, "counters/symbol_error", std::to_string(step * 400));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  EXPECT_TRUE(WaitForLine(log, "finding started: network.rdma_flap", std::chrono::seconds(30)))
      << TextOf(log);
  agent.Signal(SIGTERM);
  int status = agent.Wait(std::chrono::seconds(15));
  ASSERT_TRUE(WIFEXITED(status)) << status;

  auto json = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m",
                            "--format", "json", "--lang", "en"},
                           "");
  ASSERT_TRUE(json.exit_code >= 0 && json.exit_code <= 2) << json.exit_code << json.err;
  auto doc = nlohmann::json::parse(json.out);
  std::vector<std::string> marks;
  for (const auto& row : doc["timeline"]) {
    if (row["type"] != "state_change" || row["subject"] != "mlx5_4 port 1") continue;
    EXPECT_EQ(row["kind"], "rdma_port");
    if (!row["mark"].is_null()) marks.push_back(row["mark"]);
  }
  EXPECT_EQ(marks, (std::vector<std::string>{"down", "flap"})) << doc["timeline"].dump(1);
  const nlohmann::json* port = nullptr;
  for (const auto& p : doc["rdma_ports"]) {
    if (p["port"] == "mlx5_4 port 1") port = &p;
  }
  ASSERT_NE(port, nullptr) << doc["rdma_ports"].dump(1);
  EXPECT_EQ((*port)["flaps"], 1);
  EXPECT_EQ((*port)["link_layer"], "InfiniBand");
  EXPECT_GE((*port)["error_counters_increase"]["symbol_error"].get<int>(), 2000);
  EXPECT_GT((*port)["max_errors_per_s"].get<double>(), 100);
  EXPECT_FALSE((*port)["error_rates"].empty());
  std::set<std::string> findings;
  for (const auto& f : doc["findings"]) findings.insert(f["id"].get<std::string>());
  EXPECT_TRUE(findings.count("network.rdma_flap")) << json.out.substr(0, 4000);
  EXPECT_TRUE(findings.count("network.rdma_errors"));
  EXPECT_TRUE(findings.count("network.rdma_saturated"));  // mlx5_1's pinned link_downed

  auto html = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m",
                            "--format", "html", "--lang", "en"},
                           "");
  ASSERT_TRUE(html.exit_code >= 0 && html.exit_code <= 2) << html.err;
  EXPECT_NE(html.out.find(R"(data-metric="rdma_error_rate")"), std::string::npos);
  EXPECT_NE(html.out.find(R"(class="marker port-flap")"), std::string::npos);
  EXPECT_NE(html.out.find(R"(class="marker port-down")"), std::string::npos);
  EXPECT_NE(html.out.find("mlx5_4 port 1"), std::string::npos);
  EXPECT_NE(html.out.find(R"(<span class="mark mark-flap">flap</span>)"), std::string::npos);

  auto text = RunGpudoctor(
      {"report", "--data-dir", data.path().string(), "--since", "10m", "--lang", "en"}, "");
  EXPECT_NE(text.out.find("rdma_port flap"), std::string::npos) << text.out;
}

}  // namespace report_fabric_test_ns
}  // namespace gpudoctor::test
