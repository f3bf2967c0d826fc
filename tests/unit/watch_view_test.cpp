#include "render/watch_view.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "render/ansi.h"
#include "render/sparkline.h"

namespace gpudoctor {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kMiB = 1024 * 1024;

GpuStatus H100() {
  GpuStatus gpu;
  gpu.index = 0;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.uuid = "GPU-11111111-2222-3333-4444-555555555555";
  gpu.pci_bus_id = "0000:3b:00.0";
  gpu.utilization_gpu_percent = 45;
  gpu.memory_used_bytes = 10240 * kMiB;
  gpu.memory_total_bytes = 81559 * kMiB;
  gpu.temperature_c = 56;
  gpu.power_draw_w = 312.4;
  gpu.power_limit_w = 700.0;
  gpu.clocks_graphics_mhz = 1980;
  gpu.clocks_sm_mhz = 1980;
  gpu.pstate = 0;
  gpu.clock_event_reasons_mask = 0x4 | 0x1;  // sw_power_cap, gpu_idle
  return gpu;
}

SystemStatus System(std::vector<GpuStatus> gpus) {
  SystemStatus status;
  status.nvml_loaded = true;
  status.driver_version = "550.54.15";
  status.cuda_driver_version = 12040;
  status.gpus = std::move(gpus);
  return status;
}

std::vector<std::string> Lines(const std::string& frame) {
  std::vector<std::string> lines;
  std::istringstream in(frame);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string LineStarting(const std::string& frame, const std::string& prefix) {
  for (const auto& line : Lines(frame)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return {};
}

WatchViewOptions Options(std::size_t width, bool color) {
  WatchViewOptions options;
  options.width = width;
  options.color = color;
  options.now = std::chrono::system_clock::now();
  return options;
}

TEST(WatchViewTest, FrameShowsEveryValue) {
  SystemStatus status = System({H100()});
  History history(60);
  history.Record(status);
  std::string frame = RenderWatchFrame(status, history, Options(100, false));
  for (const char* text :
       {"gpudoctor watch", "driver 550.54.15", "CUDA 12.4", "GPU 0",
        "NVIDIA H100 80GB HBM3", " warning ", "45%", "10240/81559 MiB (12.6%)",
        "56 \u00b0C", "312.4/700.0 W", "1980 MHz", "P0",
        "slowdown: sw_power_cap", "q: quit"}) {
    EXPECT_NE(frame.find(text), std::string::npos) << text << "\n" << frame;
  }
  // gpu_idle is not a slowdown and is not listed.
  EXPECT_EQ(frame.find("gpu_idle"), std::string::npos);
}

TEST(WatchViewTest, MigDevicesGetALineEach) {
  GpuStatus gpu = H100();
  gpu.mig_mode_enabled = true;
  MigDeviceStatus busy;
  busy.gpu_instance_id = 1;
  busy.compute_instance_id = 0;
  busy.status.memory_used_bytes = 30720 * kMiB;
  busy.status.memory_total_bytes = 40960 * kMiB;
  busy.status.gpm_sm_activity_percent = 82.4;
  MigDeviceStatus no_gpm;
  no_gpm.gpu_instance_id = 2;
  no_gpm.status.memory_used_bytes = 0;
  no_gpm.status.memory_total_bytes = 20480 * kMiB;
  gpu.mig_devices = {busy, no_gpm};
  SystemStatus status = System({gpu});
  History history(60);
  history.Record(status);
  std::string frame = RenderWatchFrame(status, history, Options(100, false));
  std::string first = LineStarting(frame, "  MIG 1/0");
  EXPECT_NE(first.find("SM act 82%"), std::string::npos) << frame;
  EXPECT_NE(first.find("30720/40960 MiB (75.0%)"), std::string::npos) << first;
  std::string second = LineStarting(frame, "  MIG 2/-");
  EXPECT_NE(second.find("SM act n/a"), std::string::npos) << frame;
  // A GPU without MIG devices has no such line.
  std::string plain = RenderWatchFrame(System({H100()}), history, Options(100, false));
  EXPECT_EQ(plain.find("  MIG "), std::string::npos);
}

TEST(WatchViewTest, SparklineCoversTheHistory) {
  SystemStatus status = System({H100()});
  History history(60);
  for (std::int64_t util : {0, 50, 100}) {
    status.gpus[0].utilization_gpu_percent = util;
    history.Record(status);
  }
  auto values = history.Values(0, HistoryMetric::kUtilization);
  std::string expected = Sparkline(values, 0, 100, 60);
  ASSERT_EQ(expected.substr(expected.size() - 9), "▁▅█");

  std::string wide = RenderWatchFrame(status, history, Options(200, false));
  std::string util = LineStarting(wide, "  util");
  ASSERT_GE(util.size(), expected.size());
  EXPECT_EQ(util.substr(util.size() - expected.size()), expected);

  // A narrow terminal shows the newest samples only, right up to the edge.
  std::string narrow = RenderWatchFrame(status, history, Options(60, false));
  util = LineStarting(narrow, "  util");
  EXPECT_EQ(VisibleWidth(util), 60u);
  EXPECT_EQ(util.substr(util.size() - 9), "▁▅█");
}

// The title says "ok" only for a reading with nothing abnormal, and a
// GPU in hardware thermal slowdown is critical there, as in status' list.
TEST(WatchViewTest, TitleStateIsTheReadingsVerdict) {
  GpuStatus calm = H100();
  calm.clock_event_reasons_mask = 0x1;  // gpu_idle: not a slowdown
  GpuStatus hot = H100();
  hot.index = 1;
  hot.pci_bus_id = "0000:3c:00.0";
  hot.temperature_c = 93;
  hot.clock_event_reasons_mask = 0x40;  // hw_thermal_slowdown
  SystemStatus status = System({calm, hot});
  History history(60);
  history.Record(status);
  std::string frame = RenderWatchFrame(status, history, Options(100, false));
  EXPECT_NE(frame.find("GPU 0  NVIDIA H100 80GB HBM3  ok  "), std::string::npos) << frame;
  EXPECT_NE(frame.find("GPU 1  NVIDIA H100 80GB HBM3  critical  "), std::string::npos) << frame;
}

TEST(WatchViewTest, HotGpuIsColouredOnlyWhenAsked) {
  GpuStatus hot = H100();
  hot.temperature_c = 90;
  SystemStatus status = System({hot});
  History history(60);
  history.Record(status);

  std::string coloured = RenderWatchFrame(status, history, Options(100, true));
  EXPECT_NE(coloured.find(Colorize("90 \u00b0C", Level::kWarning, true)),
            std::string::npos);
  // The title's state is the reading's verdict: the software power cap
  // (and 90 °C) make it a warning, as status lists it.
  EXPECT_NE(coloured.find(Colorize("warning", Level::kWarning, true)),
            std::string::npos);

  std::string plain = RenderWatchFrame(status, history, Options(100, false));
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(plain.find("90 \u00b0C"), std::string::npos);
}

TEST(WatchViewTest, AtSlowdownTemperatureIsCritical) {
  GpuStatus hot = H100();
  hot.temperature_c = 90;
  hot.temperature_slowdown_c = 88;
  SystemStatus status = System({hot});
  std::string frame = RenderWatchFrame(status, History(60), Options(100, true));
  EXPECT_NE(frame.find(Colorize("90 \u00b0C", Level::kCritical, true)),
            std::string::npos);
}

TEST(WatchViewTest, EveryLineFitsTheWidth) {
  GpuStatus second = H100();
  second.index = 1;
  second.name = "NVIDIA A100-SXM4-80GB with an unusually long marketing name";
  second.clock_event_reasons_mask = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;
  SystemStatus status = System({H100(), second});
  History history(600);
  for (int i = 0; i < 700; ++i) history.Record(status);
  for (std::size_t width : {20u, 40u, 60u, 80u, 132u, 250u}) {
    for (bool color : {false, true}) {
      std::string frame =
          RenderWatchFrame(status, history, Options(width, color));
      for (const auto& line : Lines(frame)) {
        EXPECT_LE(VisibleWidth(line), width)
            << "width " << width << ": " << line;
      }
    }
  }
}

TEST(WatchViewTest, LostGpuShowsItsStateAndReason) {
  GpuStatus lost;
  lost.index = 1;
  lost.name = "NVIDIA H100 80GB HBM3";
  lost.state = GpuState::kLost;
  lost.state_detail = "GPU is lost (fell off the bus)";
  SystemStatus status = System({H100(), lost});
  std::string frame = RenderWatchFrame(status, History(60), Options(100, true));
  EXPECT_NE(frame.find(Colorize("lost", Level::kCritical, true)),
            std::string::npos);
  EXPECT_NE(frame.find("fell off the bus"), std::string::npos);
  std::string plain =
      RenderWatchFrame(status, History(60), Options(100, false));
  EXPECT_NE(plain.find("GPU 1  NVIDIA H100 80GB HBM3  lost"),
            std::string::npos);
  EXPECT_NE(plain.find("n/a"), std::string::npos);
}

TEST(WatchViewTest, NoDriverAndNoGpus) {
  SystemStatus missing;
  missing.nvml_error = "libnvidia-ml.so.1: cannot open shared object file";
  std::string frame =
      RenderWatchFrame(missing, History(1), Options(120, false));
  EXPECT_NE(frame.find("NVML: libnvidia-ml.so.1"), std::string::npos);
  EXPECT_NE(frame.find("driver n/a"), std::string::npos);

  std::string empty =
      RenderWatchFrame(System({}), History(1), Options(80, false));
  EXPECT_NE(empty.find("no NVIDIA GPU found"), std::string::npos);
}

TEST(WatchViewTest, HeaderShowsTheInterval) {
  WatchViewOptions options = Options(100, false);
  options.interval = 500ms;
  EXPECT_NE(
      RenderWatchFrame(System({}), History(1), options).find("every 500ms"),
      std::string::npos);
  options.interval = 2500ms;
  EXPECT_NE(
      RenderWatchFrame(System({}), History(1), options).find("every 2.5s"),
      std::string::npos);
}

TEST(WatchViewTest, LineFormatForPipes) {
  std::string line = RenderWatchLine(H100(), std::chrono::system_clock::now());
  std::smatch match;
  ASSERT_TRUE(std::regex_match(
      line, match, std::regex(R"((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d) (.*))")))
      << line;
  EXPECT_EQ(match[2].str(),
            "gpu=0 state=ok util=45% mem=10240/81559MiB(12.6%) temp=56C "
            "power=312.4/700.0W sm=1980MHz pstate=P0 reasons=sw_power_cap");
}

TEST(WatchViewTest, LineFormatWithNothingKnown) {
  GpuStatus gpu;
  gpu.index = 2;
  gpu.state = GpuState::kHung;
  std::string line = RenderWatchLine(gpu, std::chrono::system_clock::now());
  EXPECT_NE(line.find(" gpu=2 state=hung util=n/a mem=n/a temp=n/a power=n/a "
                      "sm=n/a pstate=n/a reasons=n/a"),
            std::string::npos)
      << line;
  gpu.clock_event_reasons_mask = 0x1;
  gpu.power_draw_w = 50;
  line = RenderWatchLine(gpu, std::chrono::system_clock::now());
  EXPECT_NE(line.find("power=50.0W"), std::string::npos) << line;
  EXPECT_NE(line.find("reasons=none"), std::string::npos) << line;
}

TEST(WatchViewTest, ClipKeepsEscapesAndResetsColour) {
  EXPECT_EQ(ClipToWidth("abcdef", 3), "abc");
  EXPECT_EQ(ClipToWidth("abc", 10), "abc");
  EXPECT_EQ(ClipToWidth("▁▂▃▄", 2), "▁▂");
  // gpudoctor's own colour codes (render/ansi.h) carry the process's token.
  EXPECT_EQ(ClipToWidth(Sgr("33") + "warm" + Sgr("0"), 2), Sgr("33") + "wa" + Sgr("0"));
  EXPECT_EQ(ClipToWidth(Sgr("33") + "ok" + Sgr("0"), 2), Sgr("33") + "ok" + Sgr("0"));
  EXPECT_EQ(ForTerminal(ClipToWidth(Sgr("33") + "warm" + Sgr("0"), 2)), "\x1b[33mwa\x1b[0m");
  EXPECT_EQ(ClipToWidth("abc", 0), "");
}

}  // namespace
}  // namespace gpudoctor
