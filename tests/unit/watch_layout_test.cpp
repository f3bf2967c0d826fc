// The watch screen's layout from the terminal size: the full layout when it
// fits the rows, one row per GPU when not; the processes in the rows left.
#include <gtest/gtest.h>

#include <sstream>

#include "render/watch_view.h"

namespace gpudoctor {
namespace {

SystemStatus LayoutGpus(unsigned count, unsigned processes_each) {
  SystemStatus status;
  status.nvml_loaded = true;
  for (unsigned i = 0; i < count; ++i) {
    GpuStatus g;
    g.index = i;
    g.name = "NVIDIA H100 80GB HBM3";
    g.utilization_gpu_percent = 50;
    g.memory_used_bytes = 1LL << 30;
    g.memory_total_bytes = 80LL << 30;
    g.temperature_c = 60;
    g.power_draw_w = 300;
    g.power_limit_w = 700;
    g.clocks_sm_mhz = 1980;
    std::vector<GpuProcess> processes;
    for (unsigned k = 0; k < processes_each; ++k) {
      processes.emplace_back(1000 * (i + 1) + k, "job", 1LL << 30);
    }
    g.processes = std::move(processes);
    status.gpus.push_back(std::move(g));
  }
  return status;
}

std::vector<std::string> FrameLines(const SystemStatus& s, std::size_t width, std::size_t height) {
  History history(60);
  history.Record(s);
  WatchViewOptions o;
  o.width = width;
  o.height = height;
  std::vector<std::string> out;
  std::istringstream in(RenderWatchFrame(s, history, o));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool AnyStartsWith(const std::vector<std::string>& lines, const std::string& prefix) {
  for (const auto& l : lines) {
    if (l.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST(WatchLayout, FullWhenItFitsCompactWhenNot) {
  const SystemStatus two = LayoutGpus(2, 1);
  auto roomy = FrameLines(two, 120, 40);
  EXPECT_TRUE(AnyStartsWith(roomy, "GPU 1  NVIDIA"));
  EXPECT_FALSE(AnyStartsWith(roomy, "GPU util"));
  const SystemStatus eight = LayoutGpus(8, 1);
  auto tight = FrameLines(eight, 120, 40);
  EXPECT_FALSE(AnyStartsWith(tight, "GPU 1  NVIDIA"));
  EXPECT_TRUE(AnyStartsWith(tight, "GPU util"));
  EXPECT_TRUE(AnyStartsWith(tight, "  7  50%"));
  // No height: the full layout, everything.
  auto unlimited = FrameLines(eight, 120, 0);
  EXPECT_TRUE(AnyStartsWith(unlimited, "GPU 7  NVIDIA"));
  EXPECT_TRUE(AnyStartsWith(unlimited, "  7     8000"));
}

TEST(WatchLayout, ProcessesFillTheRowsLeftAndSayHowManyMore) {
  const SystemStatus eight = LayoutGpus(8, 3);  // 24 processes
  for (std::size_t height : {12u, 13u, 14u, 20u, 24u, 40u}) {  // compact at all of them
    SCOPED_TRACE(height);
    auto lines = FrameLines(eight, 80, height);
    EXPECT_LE(lines.size(), height);
    std::size_t listed = 0;
    for (const auto& l : lines) listed += l.find(" job") != std::string::npos;
    bool more = AnyStartsWith(lines, "... ");
    if (height >= 11 + 2 + 24) {
      EXPECT_EQ(listed, 24u);
      EXPECT_FALSE(more);
    } else if (height >= 11 + 2 + 2) {
      EXPECT_EQ(listed, height - 11 - 2 - 1);
      EXPECT_TRUE(more);
    }
  }
}

}  // namespace
}  // namespace gpudoctor
