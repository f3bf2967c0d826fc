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

}  // namespace
}  // namespace gpudoctor
