// End-to-end tests of `gpudoctor watch`: the real binary against the fake
// NVML, through a pipe (one line per GPU per refresh) and on a
// pseudo-terminal (full-screen view, keys, signals, terminal restored).
#include <gtest/gtest.h>
#include <termios.h>

#include <csignal>
#include <regex>
#include <sstream>
#include <thread>

#include "support/pty_process.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace watch_e2e_local {

using namespace std::chrono_literals;

constexpr const char* kGpuName = "NVIDIA H100 80GB HBM3";
constexpr const char* kTwoGpus = R"({
  "driver_version": "550.54.15", "cuda_driver_version": 12040,
  "gpus": [
    {"name": "NVIDIA H100 80GB HBM3", "utilization_gpu_percent": 50,
     "memory_total_bytes": 85899345920, "memory_used_bytes": 1073741824,
     "memory_free_bytes": 84825604096,
     "temperature_c": 55, "power_draw_w": 300, "power_limit_w": 700},
    {"name": "NVIDIA H100 80GB HBM3", "utilization_gpu_percent": 20,
     "temperature_c": 91, "power_draw_w": null}
  ]})";

ProcessOptions Within(std::chrono::milliseconds timeout) {
  ProcessOptions options;
  options.timeout = timeout;
  return options;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class WatchE2eTest : public testing::Test {
 protected:
  // Writes a scenario file for the fake NVML; returns its path.
  std::string Scenario(const std::string& json) {
    return dir_.Write("scenario" + std::to_string(files_++) + ".json", json);
  }

 private:
  TempDir dir_;
  int files_ = 0;
};

std::vector<std::string> LinesFor(const std::string& text,
                                  const std::string& gpu) {
  std::vector<std::string> out;
  for (const auto& line : Lines(text)) {
    if (line.find(" gpu=" + gpu + " ") != std::string::npos)
      out.push_back(line);
  }
  return out;
}

TEST_F(WatchE2eTest, PipePrintsOneLinePerGpuPerRefresh) {
  auto r = RunGpudoctor({"watch", "-n", "0.2", "--count", "3"},
                        Scenario(kTwoGpus), Within(20s));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(Lines(r.out).size(), 6u) << r.out;
  auto first = LinesFor(r.out, "0");
  ASSERT_EQ(first.size(), 3u) << r.out;
  std::regex shape(
      R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d gpu=0 state=ok util=50% )"
      R"(mem=1024/81920MiB\(1\.2%\) temp=55C power=300\.0/700\.0W )"
      R"(sm=\S+ pstate=\S+ reasons=\S+)");
  EXPECT_TRUE(std::regex_match(first[0], shape)) << first[0];
  auto second = LinesFor(r.out, "1");
  ASSERT_EQ(second.size(), 3u) << r.out;
  EXPECT_NE(second[0].find("temp=91C power=n/a"), std::string::npos)
      << second[0];
  // The refreshes are spaced by the interval.
  EXPECT_GE(r.elapsed, 400ms);
}

TEST_F(WatchE2eTest, PipeShowsAGpuThatIsLostAndExitsWithWarning) {
  std::string scenario = Scenario(R"({
    "driver_version": "550.54.15", "cuda_driver_version": 12040,
    "gpus": [{"name": "NVIDIA H100 80GB HBM3", "faults": [{"at_s": 1.5, "kind": "lost"}]},
             {"name": "NVIDIA H100 80GB HBM3"}]})");
  // The loss comes 1.5 s after the driver loads and the refreshes go on for
  // 2.2 s after the first, so the first line shows the GPU and the last its
  // loss however late the program started.
  auto r = RunGpudoctor({"watch", "--count", "12", "-n", "0.2"}, scenario,
                        Within(60s));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto lost = LinesFor(r.out, "0");
  ASSERT_EQ(lost.size(), 12u) << r.out;
  EXPECT_NE(lost.front().find("state=ok"), std::string::npos) << r.out;
  EXPECT_NE(lost.back().find("state=lost"), std::string::npos) << r.out;
  for (const auto& line : LinesFor(r.out, "1")) {
    EXPECT_NE(line.find("state=ok"), std::string::npos) << line;
  }
}

// "-n 0" names the real minimum, 100ms, not the parser's 1ms.
TEST_F(WatchE2eTest, TooShortAnIntervalNamesTheMinimum) {
  for (const char* n : {"0", "20ms"}) {
    auto r = RunGpudoctor({"watch", "-n", n, "--count", "1"},
                          std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json");
    EXPECT_NE(r.exit_code, 0) << n;
    EXPECT_NE(r.err.find("must be at least 100ms"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("1ms"), std::string::npos) << r.err;
  }
}

TEST_F(WatchE2eTest, GpuOptionSelectsByIndex) {
  auto r = RunGpudoctor({"watch", "--count", "2", "-n", "100ms", "--gpu", "1"},
                        Scenario(kTwoGpus), Within(20s));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LinesFor(r.out, "0").size(), 0u) << r.out;
  EXPECT_EQ(LinesFor(r.out, "1").size(), 2u) << r.out;
}

TEST_F(WatchE2eTest, GpuOptionSelectsByUuidAndBusId) {
  // The fake numbers its GPUs' UUIDs and bus ids from 1.
  for (const char* selector : {"gpu-00000000-0000-0000-0000-000000000002",
                               "02:00.0", "00000000:02:00.0"}) {
    auto r = RunGpudoctor({"watch", "--count", "1", "--gpu", selector},
                          Scenario(kTwoGpus), Within(20s));
    ASSERT_EQ(r.exit_code, 0) << selector << ": " << r.err;
    EXPECT_EQ(LinesFor(r.out, "0").size(), 0u) << selector << ": " << r.out;
    EXPECT_EQ(LinesFor(r.out, "1").size(), 1u) << selector << ": " << r.out;
  }
}

TEST_F(WatchE2eTest, UnknownGpuIsAnError) {
  auto r = RunGpudoctor({"watch", "--count", "1", "--gpu", "7"},
                        Scenario(kTwoGpus), Within(20s));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find('7'), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(WatchE2eTest, BadIntervalIsAnError) {
  for (const char* interval : {"50ms", "soon", "0"}) {
    auto r = RunGpudoctor({"watch", "--count", "1", "-n", interval},
                          Scenario(kTwoGpus), Within(20s));
    EXPECT_EQ(r.exit_code, 3) << interval;
    EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
  }
}

TEST_F(WatchE2eTest, MissingDriverIsAnError) {
  auto r = RunGpudoctor({"--nvml-library", "/nonexistent/libnvidia-ml.so.1",
                         "watch", "--count", "2"},
                        "", Within(20s));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// On a terminal.

PtyOptions TerminalEnv(const std::string& scenario) {
  PtyOptions options;
  options.env["GPUDOCTOR_NVML_LIBRARY"] = FAKE_NVML_LIBRARY;
  options.env["FAKE_NVML_SCENARIO"] = scenario;
  options.env["TERM"] = "xterm-256color";
  options.unset_env = {"NO_COLOR"};
  options.columns = 100;
  options.rows = 40;
  return options;
}

void ExpectTerminalRestored(PtyProcess& watch, int exit_code = 0) {
  auto exit = watch.WaitForExit(5s);
  ASSERT_TRUE(exit.has_value()) << "still running";
  EXPECT_EQ(exit->exit_code, exit_code);
  EXPECT_EQ(exit->signal, 0);
  const std::string& out = watch.output();
  auto enter = out.find("\x1b[?1049h");
  auto leave = out.rfind("\x1b[?1049l");
  ASSERT_NE(enter, std::string::npos);
  ASSERT_NE(leave, std::string::npos);
  EXPECT_LT(enter, leave);
  EXPECT_NE(out.find("\x1b[?25l"), std::string::npos);
  EXPECT_NE(out.rfind("\x1b[?25h"), std::string::npos);
  EXPECT_GT(out.rfind("\x1b[?25h"), out.rfind("\x1b[?25l"));
  auto flags = watch.LocalModeFlags();
  ASSERT_TRUE(flags.has_value());
  EXPECT_TRUE(*flags & ECHO);
  EXPECT_TRUE(*flags & ICANON);
}

std::vector<std::string> Watch(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {GPUDOCTOR_BINARY, "watch"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

TEST_F(WatchE2eTest, TerminalQuitsOnQAndRestores) {
  PtyProcess watch(Watch({"-n", "0.2"}), TerminalEnv(Scenario(kTwoGpus)));
  ASSERT_TRUE(watch.WaitForOutput(kGpuName, 10s)) << watch.output();
  // GPU 0's temperature history: 55 C on the 20-100 C scale.
  ASSERT_TRUE(watch.WaitForOutput("\u2584\u2584", 5s)) << watch.output();
  auto flags = watch.LocalModeFlags();
  ASSERT_TRUE(flags.has_value());
  EXPECT_FALSE(*flags & ECHO) << "keys would echo over the view";
  EXPECT_FALSE(*flags & ICANON) << "keys would wait for Enter";
  EXPECT_NE(watch.output().find("CUDA 12.4"), std::string::npos);
  EXPECT_NE(watch.output().find("\x1b[33m91 \u00b0C"), std::string::npos)
      << "a 91 C GPU is coloured as a warning";
  ASSERT_TRUE(watch.Send("q"));
  ExpectTerminalRestored(watch);
}

TEST_F(WatchE2eTest, TerminalQuitsOnSigint) {
  PtyProcess watch(Watch({"-n", "0.2"}), TerminalEnv(Scenario(kTwoGpus)));
  ASSERT_TRUE(watch.WaitForOutput(kGpuName, 10s)) << watch.output();
  ASSERT_TRUE(watch.Signal(SIGINT));
  ExpectTerminalRestored(watch);
}

TEST_F(WatchE2eTest, TerminalQuitsOnCtrlC) {
  PtyProcess watch(Watch({"-n", "2"}), TerminalEnv(Scenario(kTwoGpus)));
  ASSERT_TRUE(watch.WaitForOutput(kGpuName, 10s)) << watch.output();
  ASSERT_TRUE(watch.Send("\x03"));
  ExpectTerminalRestored(watch);
}

TEST_F(WatchE2eTest, TerminalQuitsOnSigterm) {
  PtyProcess watch(Watch({"-n", "5"}), TerminalEnv(Scenario(kTwoGpus)));
  ASSERT_TRUE(watch.WaitForOutput(kGpuName, 10s)) << watch.output();
  ASSERT_TRUE(watch.Signal(SIGTERM));
  ExpectTerminalRestored(watch);
}

// As `ssh -t host 'timeout 3 gpudoctor watch'`: timeout runs watch in a
// process group of its own, a background group of the terminal it draws
// on. It must draw, never be stopped by the terminal (SIGTTOU), end on
// timeout's SIGTERM, and leave the terminal's modes as they were.
TEST_F(WatchE2eTest, TerminalInABackgroundGroupDrawsAndEndsOnSigterm) {
  PtyProcess watch({"/usr/bin/timeout", "3", GPUDOCTOR_BINARY, "watch", "-n", "0.2"},
                   TerminalEnv(Scenario(kTwoGpus)));
  ASSERT_TRUE(watch.WaitForOutput(kGpuName, 10s)) << "stopped before drawing: " << watch.output();
  auto exit = watch.WaitForExit(20s);
  ASSERT_TRUE(exit.has_value()) << "stopped by the terminal and never ended";
  EXPECT_EQ(exit->exit_code, 124) << "timeout's code: its SIGTERM ended watch";
  auto flags = watch.LocalModeFlags();
  ASSERT_TRUE(flags.has_value());
  EXPECT_TRUE(*flags & ECHO);
  EXPECT_TRUE(*flags & ICANON);
  EXPECT_NE(watch.output().rfind("\x1b[?1049l"), std::string::npos) << "the screen not restored";
}

TEST_F(WatchE2eTest, TerminalStopsAfterCount) {
  PtyProcess watch(Watch({"-n", "0.1", "--count", "2"}),
                   TerminalEnv(Scenario(kTwoGpus)));
  ExpectTerminalRestored(watch);
  EXPECT_NE(watch.output().find(kGpuName), std::string::npos);
}

TEST_F(WatchE2eTest, TerminalFrameFitsTheWidth) {
  PtyOptions options = TerminalEnv(Scenario(kTwoGpus));
  options.columns = 50;
  PtyProcess watch(Watch({"-n", "0.1", "--count", "1"}), options);
  ExpectTerminalRestored(watch);
  // No escape-free run of text is wider than the terminal.
  std::regex text_run("[^\x1b\r\n]{51,}");
  std::string plain = std::regex_replace(
      watch.output(), std::regex("\x1b\\[[0-9;?]*[A-Za-z]"), "");
  EXPECT_FALSE(std::regex_search(
      std::regex_replace(plain, std::regex("[\x80-\xbf]"), ""), text_run))
      << plain;
}

constexpr const char* kHangsAfterAMoment = R"({
  "driver_version": "550.54.15", "cuda_driver_version": 12040,
  "gpus": [{"name": "NVIDIA H100 80GB HBM3", "temperature_c": 55,
            "faults": [{"at_s": 2, "kind": "hang"}]}]})";

TEST_F(WatchE2eTest, TerminalShowsAHungGpuAndExitsWithWarning) {
  std::vector<std::string> argv = {
      GPUDOCTOR_BINARY, "--nvml-timeout", "500ms", "watch", "-n", "0.2"};
  PtyProcess watch(argv, TerminalEnv(Scenario(kHangsAfterAMoment)));
  ASSERT_TRUE(watch.WaitForOutput("hung", 30s)) << watch.output();
  ASSERT_TRUE(watch.Send("q"));
  // The driver call never returns, so the program leaves without unloading
  // NVML; the terminal must be restored all the same.
  ExpectTerminalRestored(watch, 1);
}

TEST_F(WatchE2eTest, SecondCtrlCRestoresTheTerminalWhileStuck) {
  std::vector<std::string> argv = {
      GPUDOCTOR_BINARY, "--nvml-timeout", "60s", "watch", "-n", "0.2"};
  PtyProcess watch(argv, TerminalEnv(Scenario(kHangsAfterAMoment)));
  // The first frame comes before the hang (2 s after the driver loads, and
  // the name is drawn after it loaded); 3 s after it the program is stuck
  // in a call that never returns.
  ASSERT_TRUE(watch.WaitForOutput(kGpuName, 30s)) << watch.output();
  std::this_thread::sleep_for(3s);
  ASSERT_TRUE(watch.Signal(SIGINT));
  std::this_thread::sleep_for(200ms);
  ASSERT_TRUE(watch.Signal(SIGINT));
  ExpectTerminalRestored(watch, 128 + SIGINT);
}

}  // namespace watch_e2e_local
}  // namespace gpudoctor::test
