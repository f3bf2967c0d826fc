// NvmlSession on the fake NVML: GPUs read in turn on one worker, and each on
// its own once a read is slow (read_lanes.h), with every GPU's values intact.
#include "nvml/nvml_session.h"

#include "nvml/read_lanes.h"

#include <cstdlib>

#include "unit/fake_nvml_client.h"

namespace fake_test {
namespace {

using gpudoctor::GpuState;
using gpudoctor::NvmlOptions;
using gpudoctor::NvmlSession;
using gpudoctor::SystemStatus;

// Three GPUs at 40, 41 and 42 °C; GPU 1 gets `gpu1_extra` keys.
std::string ThreeGpus(const std::string& gpu1_extra) {
  return R"({"driver_version": "550.90.07", "gpus": [
    {"name": "GPU A", "pci_bus_id": "0000:18:00.0", "temperature_c": 40},
    {"name": "GPU B", "pci_bus_id": "0000:19:00.0", "temperature_c": 41)" +
         gpu1_extra + R"(},
    {"name": "GPU C", "pci_bus_id": "0000:1a:00.0", "temperature_c": 42}]})";
}

class NvmlSessionTest : public FakeNvmlTest {
 protected:
  // `slow_read`: a read of all GPUs longer than this is slow.
  std::unique_ptr<NvmlSession> Open(const std::string& scenario,
                                    std::chrono::milliseconds slow_read) {
    setenv("FAKE_NVML_SCENARIO", WriteFile("session.json", scenario).c_str(), 1);
    NvmlOptions options;
    options.library_path = FAKE_NVML_LIBRARY;
    options.call_deadline = std::chrono::milliseconds(2000);
    options.slow_read = slow_read;
    return NvmlSession::Open(options);
  }

  static void ExpectAllRead(const SystemStatus& status) {
    ASSERT_TRUE(status.nvml_loaded) << status.nvml_error;
    ASSERT_EQ(status.gpus.size(), 3u);
    for (unsigned i = 0; i < 3; ++i) {
      const auto& gpu = status.gpus[i];
      EXPECT_EQ(gpu.index, i);
      EXPECT_EQ(gpu.state, GpuState::kOk) << gpu.state_detail;
      ASSERT_TRUE(gpu.temperature_c.has_value()) << "GPU " << i;
      EXPECT_EQ(*gpu.temperature_c, static_cast<std::int64_t>(40 + i));
    }
    EXPECT_EQ(status.gpus[0].pci_bus_id, "0000:18:00.0");
    EXPECT_EQ(status.gpus[2].pci_bus_id, "0000:1a:00.0");
  }
};

TEST_F(NvmlSessionTest, FastGpusAreReadInTurnOnOneWorker) {
  // A bound no stall of a loaded test machine reaches: the GPUs stay on one
  // worker, and every GPU's values come back in index order.
  auto session = Open(ThreeGpus(""), std::chrono::minutes(10));
  EXPECT_EQ(session->read_lanes(), 1u);
  for (int i = 0; i < 3; ++i) {
    ExpectAllRead(session->Sample());
    EXPECT_EQ(session->read_lanes(), 1u);
  }
  EXPECT_FALSE(session->HasAbandonedCalls());
}

TEST_F(NvmlSessionTest, SlowGpuGivesEachGpuItsOwnWorker) {
  // 10 ms per call on GPU 1: its read alone takes longer than the default
  // bound, however fast the machine.
  auto session = Open(ThreeGpus(R"(, "faults": [{"kind": "slow", "delay_ms": 10}])"),
                      gpudoctor::kSlowGpuRead);
  ExpectAllRead(session->Sample());
  EXPECT_EQ(session->read_lanes(), 3u);
  // Read in parallel now; GPU 1 is still slow, so the lanes stay.
  ExpectAllRead(session->Sample());
  EXPECT_EQ(session->read_lanes(), 3u);
  EXPECT_FALSE(session->HasAbandonedCalls());
}

}  // namespace
}  // namespace fake_test
