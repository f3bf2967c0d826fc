// The data directory deleted under a running agent: SQLite would go on
// writing into the unlinked file, /healthz would say ok, and everything
// recorded since would be lost at exit. Now /healthz answers 503 naming
// the store while the directory cannot be made again (a file sits where
// it was), and once it can, the agent copies the whole open store into a
// new file there and records on: report reads the samples from before,
// during and after the deletion.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test::agent_data_dir_local {

namespace fs = std::filesystem;
using std::chrono::seconds;

std::string Rfc3339(std::chrono::system_clock::time_point t) {
  const std::time_t s = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// GET /healthz until its status is `want` (or `limit` passes); the last
// status and body.
std::pair<int, std::string> HealthUntil(int port, int want, seconds limit) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(5);
  std::pair<int, std::string> last{0, ""};
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (auto r = c.Get("/healthz")) last = {r->status, r->body};
    if (last.first == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return last;
}

TEST(AgentDataDir, DeletedUnderTheAgentIsUnhealthyThenRecoveredWithEverything) {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.string(), "--interval", "200ms", "--no-kernel-log",
                     "--facts-every", "1h", "--run-for", "120s", "--listen",
                     "127.0.0.1:" + std::to_string(port)}),
      FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/healthy_busy.json"),
      (tmp.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  ASSERT_EQ(HealthUntil(port, 200, seconds(30)).first, 200);
  const auto started_at = std::chrono::system_clock::now() - seconds(1);
  std::this_thread::sleep_for(seconds(2));  // samples before the deletion
  const auto deleted_at = std::chrono::system_clock::now();

  // Deleted, and a file where the directory was: it cannot be made again.
  fs::remove_all(data);
  std::ofstream(data) << "in the way\n";
  auto gone = HealthUntil(port, 503, seconds(30));
  EXPECT_EQ(gone.first, 503) << gone.second;
  EXPECT_NE(gone.second.find("gpudoctor.db: deleted under the running agent"), std::string::npos)
      << gone.second;
  std::this_thread::sleep_for(seconds(2));  // samples while it is gone

  fs::remove(data);
  auto back = HealthUntil(port, 200, seconds(30));
  const auto back_at = std::chrono::system_clock::now();
  EXPECT_EQ(back.first, 200) << back.second;
  EXPECT_TRUE(fs::exists(data / "gpudoctor.db"));
  std::this_thread::sleep_for(seconds(1));
  agent.Signal(SIGTERM);
  const int st = agent.Wait(seconds(30));
  EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
  std::ifstream log_in(tmp.path() / "agent.log");
  const std::string log((std::istreambuf_iterator<char>(log_in)), {});
  EXPECT_NE(log.find("error: store: "), std::string::npos) << log;
  EXPECT_NE(log.find("recording into a new file"), std::string::npos) << log;

  // The new store holds the whole run: the samples from before the
  // deletion and from while the directory was gone.
  auto readings_between = [&](std::chrono::system_clock::time_point from,
                              std::chrono::system_clock::time_point to) -> std::int64_t {
    auto r = RunProcess(GpudoctorArgv({"report", "--data-dir", data.string(), "--from",
                                       Rfc3339(from), "--to", Rfc3339(to), "--format", "json"}));
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_discarded()) {
      ADD_FAILURE() << r.out << r.err;
      return 0;
    }
    std::int64_t most = 0;
    for (const auto& gpu : j.value("gpus", nlohmann::json::array())) {
      most = std::max<std::int64_t>(most, gpu.value("readings", std::int64_t{0}));
    }
    return most;
  };
  EXPECT_GE(readings_between(started_at, deleted_at), 3) << "the samples before the deletion";
  EXPECT_GE(readings_between(deleted_at, back_at), 3) << "the samples while it was gone";
}

}  // namespace gpudoctor::test::agent_data_dir_local
