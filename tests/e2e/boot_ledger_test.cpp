// End-to-end: the agent's boot ledger. A run on one boot, then the node
// reboots (a new boot_id and boot time under --root, a panic kept in
// pstore): the next run records one reboot event at the boot's time, naming
// the crash record; `report` shows it on the timeline; /metrics counts it;
// a third start on the same boot records nothing more.
#include <gtest/gtest.h>

#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {
namespace boot_ledger_e2e_local {

using nlohmann::json;

void Host(const TempDir& root, const std::string& boot_id, long long boot_time) {
  root.Write("proc/stat",
             "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime " + std::to_string(boot_time) + "\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  root.Write("proc/sys/kernel/random/boot_id", boot_id + "\n");
}

std::vector<std::string> AgentArgs(const TempDir& root, const TempDir& data,
                                   const std::string& listen) {
  return {"agent",
          "--data-dir",
          data.path().string(),
          "--root",
          root.path().string(),
          "--interval",
          "200ms",
          "--window",
          "2s",
          "--evaluate-every",
          "400ms",
          "--facts-every",
          "1h",
          "--no-kernel-log",
          "--listen",
          listen.empty() ? std::string("") : listen,
          "--run-for",
          "3s"};
}

int RunAgent(const TempDir& root, const TempDir& data) {
  auto r = RunGpudoctor(AgentArgs(root, data, ""),
                        std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code;
}

std::vector<json> RebootEvents(const TempDir& data) {
  auto r = RunGpudoctor(
      {"report", "--data-dir", data.path().string(), "--since", "1h", "--format", "json"}, "");
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_TRUE(doc.is_object()) << r.err << r.out.substr(0, 1000);
  std::vector<json> out;
  if (!doc.is_object()) return out;
  for (const auto& row : doc["timeline"]) {
    if (row["type"] == "event" && row["event"] == "reboot") out.push_back(row);
  }
  return out;
}

TEST(BootLedgerE2E, ARebootBetweenRunsIsOnTheTimelineWithItsCrashRecordAndCounted) {
  TempDir root, data;
  const auto start = static_cast<long long>(std::time(nullptr));
  Host(root, "6b1d0a0e-0000-4000-8000-00000000000a", start - 3600);
  ASSERT_EQ(RunAgent(root, data), 0);
  EXPECT_TRUE(RebootEvents(data).empty()) << "no earlier boot known: nothing to record";

  // The node reboots: a new boot, after the first run's last sample, and
  // the panic that ended the previous one kept in pstore.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const auto boot = static_cast<long long>(std::time(nullptr));
  Host(root, "6b1d0a0e-0000-4000-8000-00000000000b", boot);
  root.Write("sys/fs/pstore/dmesg-ramoops-0",
             "Panic#1 Part1\n<0>[ 1234.567890] Kernel panic - not syncing: Fatal exception\n");
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  BackgroundProcess agent(GpudoctorArgv(AgentArgs(root, data, "127.0.0.1:" + std::to_string(port))),
                          FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json"),
                          (data.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  std::string metrics;
  for (int i = 0; i < 100 && metrics.find("gpudoctor_node_reboots ") == std::string::npos; ++i) {
    if (auto r = c.Get("/metrics"); r && r->status == 200) metrics = r->body;
    else std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(metrics.find("\ngpudoctor_node_reboots 1\n"), std::string::npos)
      << metrics.substr(0, 400);
  EXPECT_EQ(agent.Wait(std::chrono::seconds(20)), 0);

  auto reboots = RebootEvents(data);
  ASSERT_EQ(reboots.size(), 1u);
  const json& e = reboots[0];
  const std::string message = e["message"].get<std::string>();
  EXPECT_NE(message.find("00000000000b"), std::string::npos) << message;
  EXPECT_NE(message.find("previous 6b1d0a0e-0000-4000-8000-00000000000a"), std::string::npos)
      << message;
  EXPECT_NE(message.find("sys/fs/pstore/dmesg-ramoops-0"), std::string::npos) << message;
  // At the boot's time (to the second), not when the agent started.
  std::tm tm{};
  const auto boot_t = static_cast<std::time_t>(boot);
  gmtime_r(&boot_t, &tm);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
  EXPECT_EQ(e["time"].get<std::string>().rfind(when, 0), 0u) << e.dump();

  // Another start on the same boot: still one reboot.
  ASSERT_EQ(RunAgent(root, data), 0);
  EXPECT_EQ(RebootEvents(data).size(), 1u);
  // And the text report shows it on the timeline.
  auto text = RunGpudoctor(
      {"report", "--data-dir", data.path().string(), "--since", "1h", "--lang", "en"}, "");
  EXPECT_NE(text.out.find("reboot: the node booted again"), std::string::npos) << text.out;
}

}  // namespace boot_ledger_e2e_local
}  // namespace
}  // namespace gpudoctor::test
