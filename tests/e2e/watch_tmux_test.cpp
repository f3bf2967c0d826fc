// End-to-end: `gpudoctor watch` on a real terminal (tmux) with 8 fake GPUs at
// 80x24, 120x40 and 200x60. The full layout (a block per GPU) does not fit
// 24 or 40 rows: one row per GPU instead, every value with its sparkline,
// then the processes in the rows left. At 200x60 the full layout fits. No
// line is wider or longer than the terminal. Skipped when tmux is absent.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <thread>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

namespace fs = std::filesystem;

std::string TmuxPath() {
  for (const char* p : {"/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"}) {
    if (fs::exists(p)) return p;
  }
  return "";
}

// Eight H100s, GPM on the first two; thirteen processes (three on GPU 2,
// four on GPU 5, one on each other GPU); GPU 3 at its power cap, GPU 4 in
// thermal slowdown.
std::string EightGpus() {
  std::string gpus;
  int pid = 4000;
  for (int i = 0; i < 8; ++i) {
    std::string processes;
    const int count = i == 2 ? 3 : i == 5 ? 4 : 1;
    for (int k = 0; k < count; ++k, ++pid) {
      if (!processes.empty()) processes += ", ";
      processes += "{\"pid\": " + std::to_string(pid) + ", \"name\": \"proc" + std::to_string(pid) +
                   "\", \"used_memory_bytes\": " + std::to_string((4LL + k) << 30) +
                   ", \"sm_util_percent\": " + std::to_string(60 - 10 * k) + "}";
    }
    if (!gpus.empty()) gpus += ",\n";
    gpus += "{\"name\": \"NVIDIA H100 80GB HBM3\", \"utilization_gpu_percent\": " +
            std::to_string(40 + 5 * i) +
            ", \"memory_total_bytes\": 85899345920, \"memory_used_bytes\": " +
            std::to_string((10LL + 8 * i) << 30) + ", \"temperature_c\": " +
            std::to_string(50 + 4 * i) +
            ", \"power_draw_w\": 350.5, \"power_limit_w\": 700, \"clocks_graphics_mhz\": 1980, "
            "\"clocks_sm_mhz\": 1980, \"clocks_max_sm_mhz\": 1980, \"pstate\": 0, "
            "\"clock_event_reasons\": [" +
            std::string(i == 3 ? "\"sw_power_cap\"" : i == 4 ? "\"sw_thermal_slowdown\"" : "") + "]" +
            (i < 2 ? ", \"gpm_supported\": true, \"gpm_sm_activity_percent\": " +
                         std::to_string(15 + i)
                   : std::string()) +
            ", \"processes\": [" + processes + "]}";
  }
  return "{\"gpus\": [\n" + gpus + "\n]}";
}

// Code points, which is what a terminal gives each of these characters.
std::size_t Columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool Has(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines) {
    if (l.find(text) != std::string::npos) return true;
  }
  return false;
}

bool StartsWithOne(const std::vector<std::string>& lines, const std::string& prefix) {
  for (const auto& l : lines) {
    if (l.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

class WatchTmux : public ::testing::Test {
 protected:
  void SetUp() override {
    tmux_ = TmuxPath();
    if (tmux_.empty()) GTEST_SKIP() << "tmux not installed (Debian package tmux): watch layout test skipped";
    scenario_ = dir_.Write("eight.json", EightGpus());
    script_ = dir_.Write("run.sh", "#!/bin/sh\nexport GPUDOCTOR_NVML_LIBRARY='" FAKE_NVML_LIBRARY
                                   "'\nexport FAKE_NVML_SCENARIO='" + scenario_ +
                                       "'\nexec '" GPUDOCTOR_BINARY "' watch -n 0.3\n");
    fs::permissions(script_, fs::perms::owner_all);
    // `status` prints once; the shell then waits so the pane can be read.
    status_script_ = dir_.Write("status.sh", "#!/bin/sh\nexport GPUDOCTOR_NVML_LIBRARY='" FAKE_NVML_LIBRARY
                                             "'\nexport FAKE_NVML_SCENARIO='" + scenario_ +
                                                 "'\n'" GPUDOCTOR_BINARY "' status; echo status-done; exec sleep 60\n");
    fs::permissions(status_script_, fs::perms::owner_all);
    socket_ = "gpudoctor-test-" + std::to_string(getpid());
  }
  void TearDown() override {
    if (!tmux_.empty()) Tmux({"kill-server"});
  }

  ProcessResult Tmux(std::vector<std::string> args) {
    std::vector<std::string> argv = {tmux_, "-L", socket_, "-f", "/dev/null"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions o;
    o.env["TERM"] = "xterm-256color";
    o.timeout = std::chrono::seconds(20);
    return RunProcess(argv, o);
  }

  // The screen of a fresh `watch` at width x height, once the GPU rows and
  // the processes are drawn (bounded wait).
  std::vector<std::string> Screen(int width, int height, const std::string& ready, std::string script = "") {
    Tmux({"kill-server"});
    auto started = Tmux({"new-session", "-d", "-s", "w", "-x", std::to_string(width), "-y",
                         std::to_string(height), script.empty() ? script_ : script});
    EXPECT_EQ(started.exit_code, 0) << started.err;
    std::vector<std::string> lines;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      // A command that prints and returns (status) is read with the
      // scrollback; watch's screen is the pane.
      auto shot = script.empty() ? Tmux({"capture-pane", "-p", "-t", "w"})
                                 : Tmux({"capture-pane", "-p", "-S", "-500", "-t", "w"});
      if (shot.exit_code != 0) continue;
      lines = SplitLines(shot.out);
      if (Has(lines, ready)) break;
    }
    return lines;
  }

  void ExpectFits(const std::vector<std::string>& lines, std::size_t width, std::size_t height) {
    EXPECT_LE(lines.size(), height);
    for (const auto& l : lines) EXPECT_LE(Columns(l), width) << l;
  }

  std::string Dump(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
  }

  std::string tmux_, socket_, scenario_, script_, status_script_;
  TempDir dir_;
};

TEST_F(WatchTmux, At80x24OneRowPerGpuAndTheProcessesThatFit) {
  auto lines = Screen(80, 24, "... ");
  ExpectFits(lines, 80, 24);
  EXPECT_TRUE(Has(lines, "8 x NVIDIA H100 80GB HBM3")) << Dump(lines);
  EXPECT_TRUE(StartsWithOne(lines, "GPU util")) << Dump(lines);
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(StartsWithOne(lines, "  " + std::to_string(i) + "  ")) << i << "\n" << Dump(lines);
  }
  EXPECT_FALSE(Has(lines, "GPU 0  NVIDIA")) << "no full blocks\n" << Dump(lines);
  EXPECT_TRUE(StartsWithOne(lines, "  0  ") && Has(lines, " 15% ")) << "GPM's SM activity\n"
                                                                    << Dump(lines);
  EXPECT_TRUE(Has(lines, "    PID  owner")) << Dump(lines);
  // 24 rows: header, models, column header, 8 GPUs, blank, process header:
  // 11 rows for 13 processes, so 10 and a line for the other 3.
  EXPECT_TRUE(Has(lines, "... 3 more")) << Dump(lines);
  EXPECT_TRUE(Has(lines, "proc4003")) << "GPU 2's busiest first\n" << Dump(lines);
}

TEST_F(WatchTmux, At120x40OneRowPerGpuWithLongerSparklinesAndEveryProcess) {
  auto lines = Screen(120, 40, "proc4012");
  ExpectFits(lines, 120, 40);
  EXPECT_TRUE(StartsWithOne(lines, "GPU util")) << Dump(lines);
  EXPECT_TRUE(Has(lines, "sw_power_cap")) << Dump(lines);
  for (int pid = 4000; pid <= 4012; ++pid) {
    EXPECT_TRUE(Has(lines, "proc" + std::to_string(pid))) << pid << "\n" << Dump(lines);
  }
  EXPECT_FALSE(Has(lines, "... ")) << Dump(lines);
}

// At 80 columns the longest reason name was cut ("sw_therm") to make room
// for sparklines.
TEST_F(WatchTmux, At80x24ReasonNamesAreNotCut) {
  auto lines = Screen(80, 24, "... ");
  ExpectFits(lines, 80, 24);
  EXPECT_TRUE(Has(lines, "sw_thermal_slowdown")) << Dump(lines);
}

// 8 GPUs in blocks do not fit 50 rows in one column: at 200 columns they go
// two abreast instead of falling back to one row per GPU with 28 rows empty.
TEST_F(WatchTmux, At200x50TheFullLayoutGoesSideBySide) {
  auto lines = Screen(200, 50, "GPU 7  NVIDIA H100 80GB HBM3");
  ExpectFits(lines, 200, 50);
  EXPECT_FALSE(StartsWithOne(lines, "GPU util")) << "not the compact layout\n" << Dump(lines);
  bool abreast = false;
  for (const auto& l : lines) {
    abreast |= l.rfind("GPU 0  NVIDIA", 0) == 0 && l.find("GPU 1  NVIDIA") != std::string::npos;
  }
  EXPECT_TRUE(abreast) << Dump(lines);
  EXPECT_TRUE(Has(lines, "slowdown: sw_thermal_slowdown")) << Dump(lines);
}

TEST_F(WatchTmux, At200x60TheFullLayoutFits) {
  auto lines = Screen(200, 60, "GPU 7  NVIDIA H100 80GB HBM3");
  ExpectFits(lines, 200, 60);
  EXPECT_TRUE(Has(lines, "GPU 7  NVIDIA H100 80GB HBM3  ok")) << Dump(lines);
  EXPECT_TRUE(StartsWithOne(lines, "  SM act 15%")) << Dump(lines);
  EXPECT_TRUE(StartsWithOne(lines, "  memory ")) << Dump(lines);
  EXPECT_FALSE(StartsWithOne(lines, "GPU util")) << Dump(lines);
}

// `status` at 80 columns: the 125-column table wrapped every row. It now
// leaves out persistence, P-state, SM clock and bus id, shortens the name,
// and says so.
// (At 24 rows the table has scrolled up: it is read from tmux's scrollback.)
TEST_F(WatchTmux, StatusFitsEightyColumns) {
  auto lines = Screen(80, 24, "status-done", status_script_);
  for (const auto& l : lines) EXPECT_LE(Columns(l), 80u) << l << "\n" << Dump(lines);
  EXPECT_TRUE(StartsWithOne(lines, "GPU  Name")) << Dump(lines);
  EXPECT_TRUE(Has(lines, "(not shown to fit the terminal: Persist, P, SM clock")) << Dump(lines);
  for (const auto& l : lines) {
    if (l.rfind("GPU  Name", 0) == 0) {
      EXPECT_EQ(l.find("Persist"), std::string::npos) << l;
    }
  }
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(StartsWithOne(lines, "  " + std::to_string(i) + "  ")) << i << "\n" << Dump(lines);
  }
  EXPECT_TRUE(Has(lines, "proc4012")) << Dump(lines);
}

TEST_F(WatchTmux, StatusShowsEveryColumnAt200) {
  auto lines = Screen(200, 50, "status-done", status_script_);
  for (const auto& l : lines) EXPECT_LE(Columns(l), 200u) << l;
  EXPECT_TRUE(Has(lines, "Persist")) << Dump(lines);
  EXPECT_TRUE(Has(lines, "NVIDIA H100 80GB HBM3")) << Dump(lines);
  EXPECT_FALSE(Has(lines, "not shown to fit")) << Dump(lines);
}

}  // namespace
}  // namespace gpudoctor::test
