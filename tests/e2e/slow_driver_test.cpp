// End-to-end: a driver that answers slowly (the fake's `slow` fault on every
// GPU, as a driver whose GSP firmware is in trouble) and one that hangs in
// nvmlInit. The GPUs are read in parallel, so eight slow GPUs cost about what
// one costs; the slowness is a finding in status and diagnose; an agent that
// retries a hung nvmlInit keeps one stuck thread, not one per retry.
// No time is asserted on its own: only the eight-GPU cost against eight times
// the one-GPU cost measured in the same test.
#include <dirent.h>

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "support/background_process.h"
#include "support/fake_host.h"
#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/wait_until.h"

namespace gpudoctor::test {
namespace slow_driver_test_ns {

using nlohmann::json;

// `gpus` GPUs whose every call sleeps `delay_ms` first.
std::string SlowDriverGpus(int gpus, int delay_ms) {
  std::string s = R"({"driver_version": "550.90.07", "gpus": [)";
  for (int i = 0; i < gpus; ++i) {
    if (i > 0) s += ", ";
    s += R"({"temperature_c": 40, "power_draw_w": 100, "faults": [{"kind": "slow", "delay_ms": )" +
         std::to_string(delay_ms) + "}]}";
  }
  return s + "]}";
}

ProcessOptions SlowDriverRunOptions() {
  ProcessOptions opts;
  opts.timeout = std::chrono::minutes(5);
  return opts;
}

// 60 ms a call: above the 50 ms at which the driver.nvml_slow rule speaks.
constexpr int kSlowDriverDelayMs = 60;

TEST(SlowDriverE2E, EightSlowGpusCostAboutWhatOneCostsAndStatusSaysWhy) {
  TempDir dir;
  const auto one = RunGpudoctor({"status", "--json"}, dir.Write("one.json", SlowDriverGpus(1, kSlowDriverDelayMs)),
                                SlowDriverRunOptions());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto eight = RunGpudoctor({"status", "--json"},
                                  dir.Write("eight.json", SlowDriverGpus(8, kSlowDriverDelayMs)), SlowDriverRunOptions());
  ASSERT_EQ(eight.exit_code, 0) << eight.err;
  // Read in turn, eight GPUs cost eight times one; in parallel about one.
  EXPECT_LT(eight.elapsed.count(), 8 * one.elapsed.count() / 2)
      << "one GPU " << one.elapsed.count() << " ms, eight " << eight.elapsed.count() << " ms";
  const json doc = json::parse(eight.out);
  ASSERT_EQ(doc["gpus"].size(), 8u);
  for (const auto& g : doc["gpus"]) {
    ASSERT_TRUE(g["nvml_call_latency_ms"].is_number()) << g.dump();
    EXPECT_GE(g["nvml_call_latency_ms"].get<double>(), kSlowDriverDelayMs);
  }
  EXPECT_NE(eight.err.find("NVML answers in"), std::string::npos) << eight.err;
  EXPECT_NE(eight.err.find("ms per call on GPU 7"), std::string::npos) << eight.err;
  // The table says it too, below the GPUs.
  const auto table = RunGpudoctor({"status"}, dir.Write("t.json", SlowDriverGpus(1, kSlowDriverDelayMs)), SlowDriverRunOptions());
  EXPECT_NE(table.out.find("the driver or its GSP firmware is struggling"), std::string::npos)
      << table.out;
}

TEST(SlowDriverE2E, DiagnoseOfEightSlowGpusNamesTheSlowDriverInAboutOneGpusTime) {
  TempDir dir;
  WriteQuietHost(dir, {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:04:00.0",
                       "0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"});
  const auto one = RunGpudoctor({"status", "--json"}, dir.Write("one.json", SlowDriverGpus(1, kSlowDriverDelayMs)),
                                SlowDriverRunOptions());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto d = RunGpudoctor({"diagnose", "--duration", "1s", "--format", "json", "--lang", "en",
                               "--root", dir.path().string()},
                              dir.Write("eight.json", SlowDriverGpus(8, kSlowDriverDelayMs)), SlowDriverRunOptions());
  ASSERT_FALSE(d.timed_out);
  // Eight GPUs read in turn would cost 8x one status; diagnose's own work
  // (the host, the kernel log) is small beside it.
  EXPECT_LT(d.elapsed.count(), 8 * one.elapsed.count() / 2)
      << "one GPU " << one.elapsed.count() << " ms, diagnose " << d.elapsed.count() << " ms";
  const json doc = json::parse(d.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << d.out << d.err;
  int slow_findings = 0;
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "driver.nvml_slow") continue;
    ++slow_findings;
    EXPECT_NE(f["title"].get<std::string>().find("ms per call"), std::string::npos) << f.dump();
  }
  // One per GPU, or one folded across them.
  EXPECT_GE(slow_findings, 1) << d.out;
}

int TaskCountOf(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

TEST(SlowDriverE2E, AgentRetryingAHungInitKeepsOneStuckThread) {
  TempDir root, data, dir;
  root.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1\n");
  root.Write("proc/meminfo", "MemTotal: 1048576 kB\nMemAvailable: 900000 kB\n");
  const auto scenario = dir.Write("hung.json", R"({"init_delay_ms": 600000, "gpus": [{}]})");
  BackgroundProcess agent(
      GpudoctorArgv({"--nvml-timeout", "200ms", "agent", "--data-dir", data.path().string(),
                     "--root", root.path().string(), "--interval", "200ms", "--facts-every", "1h",
                     "--no-listen"}),
      FakeNvmlEnv(scenario), (data.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  // The first attempt hangs at once and is given up after 200 ms (the log
  // says so); the agent retries 1, 2 and 4 s later. Counted 1 s after the
  // first attempt was given up, when the start-up's short-lived threads are
  // gone, and 7 s later, after two or three more attempts (however slowly
  // the agent started).
  const std::string log = (data.path() / "agent.log").string();
  ASSERT_TRUE(WaitUntil(
      [&] {
        std::ifstream in(log);
        std::stringstream text;
        text << in.rdbuf();
        return text.str().find("retrying with back-off") != std::string::npos;
      },
      std::chrono::seconds(120)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const int after_first = TaskCountOf(agent.pid());
  ASSERT_GT(after_first, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(7000));
  const int after_retries = TaskCountOf(agent.pid());
  // Each retry used to leave one more thread in nvmlInit.
  EXPECT_LE(after_retries, after_first + 1)
      << "threads after the first attempt " << after_first << ", after the retries "
      << after_retries;
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(15)), -1) << "the agent did not stop";
}

}  // namespace
}  // namespace gpudoctor::test
