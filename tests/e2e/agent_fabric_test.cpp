// End-to-end: the agent on a --root tree holding the real HGX H100
// /sys/class/infiniband capture (../shared/fixtures/infiniband), whose
// state and counter files the test rewrites while the agent runs: a port
// that goes down and comes back is a flap, and its link_downed rising an
// error finding; the agent serves the ports on /metrics.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/background_process.h"
#include "support/fake_host.h"
#include "support/infiniband_tree.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace agent_fabric_test_ns {

std::string FileText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WritePortFile(const TempDir& root, const std::string& file, const std::string& text) {
  std::ofstream(InfinibandPort(root.path(), "mlx5_4") / file, std::ios::trunc) << text << "\n";
}

// Waits up to `limit` for `what` in the file; true when it appeared.
bool WaitForText(const std::filesystem::path& path, const std::string& what,
                 std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (FileText(path).find(what) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

TEST(AgentFabricE2E, APortThatFlapsIsFoundWhileTheAgentRuns) {
  TempDir root, data;
  WriteQuietHost(root, {"0000:18:00.0", "0000:19:00.0"});
  root.Write("proc/sys/kernel/random/boot_id", "6b1d0a0e-0000-4000-8000-000000000002\n");
  if (!CopyInfinibandCapture(root.path())) GTEST_SKIP() << "../shared/fixtures/infiniband missing";
  const auto log = data.path() / "agent.log";
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root", root.path().string(),
                     "--interval", "200ms", "--window", "5s", "--evaluate-every", "400ms",
                     "--facts-every", "1h", "--log-level", "debug", "--no-listen",
                     "--no-kernel-log", "--no-nvml-events"}),
      FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/healthy_busy.json"), log.string());
  ASSERT_TRUE(agent.started());
  // The network facts are read once at the start (a 1 s window); the ports
  // every 400 ms from then on. Each state below lasts several readings.
  ASSERT_TRUE(WaitForText(log, "recording every", std::chrono::seconds(30))) << FileText(log);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  WritePortFile(root, "state", "1: DOWN");
  WritePortFile(root, "phys_state", "2: Polling");
  WritePortFile(root, "counters/link_downed", "1");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  WritePortFile(root, "state", "4: ACTIVE");
  WritePortFile(root, "phys_state", "5: LinkUp");
  EXPECT_TRUE(WaitForText(log, "finding started: network.rdma_flap", std::chrono::seconds(30)))
      << FileText(log);
  EXPECT_TRUE(WaitForText(log, "finding started: network.rdma_errors", std::chrono::seconds(5)))
      << FileText(log);
  // The capture's own scar, mlx5_1's link_downed pinned at 255, is told too.
  EXPECT_NE(FileText(log).find("finding started: network.rdma_saturated"), std::string::npos);
  agent.Signal(SIGTERM);
  int status = agent.Wait(std::chrono::seconds(15));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace gpudoctor::test
