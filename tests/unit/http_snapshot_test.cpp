#include <gtest/gtest.h>

#include "agent/http_snapshot.h"

namespace gpudoctor {
namespace http_snapshot_test_ns {

GpuStatus Gpu(const std::string& bus, GpuState state) {
  GpuStatus g;
  g.pci_bus_id = bus;
  g.state = state;
  return g;
}

// A hung GPU is never called again, so every later sample shows it hung:
// the counter rose once a second for one hang.
TEST(SnapshotBuilder, OneHungGpuIsOneTimeoutHoweverLongItStaysHung) {
  const WallTime start{};
  SnapshotBuilder b(start, std::chrono::seconds(1));
  SystemStatus s;
  s.nvml_loaded = true;
  s.gpus = {Gpu("0000:18:00.0", GpuState::kOk), Gpu("0000:19:00.0", GpuState::kHung)};
  for (int i = 0; i < 10; ++i) b.OnSample(s, start + std::chrono::seconds(i), 0.01);
  EXPECT_EQ(b.Build(2, StoreStats{}, 10, 0)->nvml_timeouts, 1u);

  // It answers again, then hangs again: a second timeout.
  s.gpus[1].state = GpuState::kOk;
  b.OnSample(s, start + std::chrono::seconds(10), 0.01);
  s.gpus[1].state = GpuState::kHung;
  b.OnSample(s, start + std::chrono::seconds(11), 0.01);
  b.OnSample(s, start + std::chrono::seconds(12), 0.01);
  EXPECT_EQ(b.Build(2, StoreStats{}, 13, 0)->nvml_timeouts, 2u);
}

// GPU 1 is lost before it gave a bus id: it is "index:1", the name the
// rules' findings give it, so it has a verdict series at the finding's
// level and counts as one lost GPU. Once it answers with a bus id, that is
// its only name. (Before: no row and no verdict, only an anonymous count.)
TEST(SnapshotBuilder, AGpuWithoutABusIdIsNamedByItsIndex) {
  const WallTime start{};
  SnapshotBuilder b(start, std::chrono::seconds(1));
  SystemStatus s;
  s.nvml_loaded = true;
  s.gpus = {Gpu("0000:18:00.0", GpuState::kOk), Gpu("", GpuState::kLost)};
  s.gpus[1].index = 1;
  b.OnSample(s, start, 0.01);
  b.OnSample(s, start + std::chrono::seconds(1), 0.01);
  FindingInterval lost;
  lost.finding_id = "gpu.lost";
  lost.severity = Severity::kCritical;
  lost.gpus = {"index:1"};
  b.OnFindings({lost});
  auto snap = b.Build(2, StoreStats{}, 2, 0);
  ASSERT_EQ(snap->gpus.size(), 2u);
  ASSERT_TRUE(snap->gpus.count("index:1"));
  const GpuCounters& c = snap->gpus.at("index:1");
  EXPECT_TRUE(c.seen);
  EXPECT_EQ(c.labels.index, 1u);
  EXPECT_EQ(c.labels.pci_bus_id, "");
  EXPECT_EQ(c.verdict, Severity::kCritical);
  EXPECT_EQ(snap->gpus.at("0000:18:00.0").verdict, Severity::kOk);
  EXPECT_EQ(snap->gpus_lost, 1u);
  EXPECT_EQ(snap->gpus_visible, 1u);

  s.gpus[1] = Gpu("0000:19:00.0", GpuState::kOk);
  s.gpus[1].index = 1;
  b.OnSample(s, start + std::chrono::seconds(2), 0.01);
  b.OnFindings({});
  snap = b.Build(2, StoreStats{}, 3, 0);
  EXPECT_FALSE(snap->gpus.count("index:1"));
  EXPECT_TRUE(snap->gpus.count("0000:19:00.0"));
  EXPECT_EQ(snap->gpus_lost, 0u);
}

}  // namespace
}  // namespace gpudoctor
