// NvmlSession on the fake NVML: GPUs read in turn on one worker, and each on
// its own once a read is slow (read_lanes.h), with every GPU's values intact.
#include "nvml/nvml_session.h"

#include "nvml/driver_opener.h"
#include "nvml/read_lanes.h"

#include <cstdlib>
#include <filesystem>
#include <thread>
#include <cstdio>

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
  // A bound no stall of a loaded test machine reaches: after the first read
  // (one worker per GPU: its speed is not known yet) the GPUs go to one
  // worker, and every GPU's values come back in index order.
  auto session = Open(ThreeGpus(""), std::chrono::minutes(10));
  EXPECT_EQ(session->read_lanes(), 0u);  // not opened yet
  ExpectAllRead(session->Sample());
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

TEST_F(NvmlSessionTest, EachReadingCarriesItsMedianCallTime) {
  // 50 ms per call on GPU 1 only: its readings say so, the others' do not
  // (their calls cost what the fake costs, far below a sleep of 50 ms).
  auto session = Open(ThreeGpus(R"(, "faults": [{"kind": "slow", "delay_ms": 50}])"),
                      gpudoctor::kSlowGpuRead);
  const SystemStatus status = session->Sample();
  ExpectAllRead(status);
  for (unsigned i = 0; i < 3; ++i) {
    ASSERT_TRUE(status.gpus[i].nvml_call_latency_ms.has_value()) << "GPU " << i;
  }
  EXPECT_GE(*status.gpus[1].nvml_call_latency_ms, 50.0);
  EXPECT_LT(*status.gpus[0].nvml_call_latency_ms, 50.0);
  EXPECT_LT(*status.gpus[2].nvml_call_latency_ms, 50.0);
}

TEST_F(NvmlSessionTest, TheFirstReadGivesEachGpuItsOwnWorker) {
  // Every GPU slow: read in turn, the first sample would cost three GPUs'
  // reads; on a worker each, the GPUs' calls overlap. Counted, not timed:
  // at some moment calls of different GPUs were in flight together.
  auto session = Open(R"({"gpus": [
      {"temperature_c": 40, "faults": [{"kind": "slow", "delay_ms": 20}]},
      {"temperature_c": 41, "faults": [{"kind": "slow", "delay_ms": 20}]},
      {"temperature_c": 42, "faults": [{"kind": "slow", "delay_ms": 20}]}]})",
                      gpudoctor::kSlowGpuRead);
  const auto started = std::chrono::steady_clock::now();
  const SystemStatus status = session->Sample();
  const double took_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(status.nvml_loaded) << status.nvml_error;
  ASSERT_EQ(status.gpus.size(), 3u);
  // Each GPU's own calls alone took its median times its calls; read in
  // turn, the sample would take the sum of the three.
  double serial_ms = 0;
  for (const auto& g : status.gpus) {
    ASSERT_TRUE(g.nvml_call_latency_ms.has_value());
    serial_ms += *g.nvml_call_latency_ms * 40;  // each read makes more than 40 calls
  }
  EXPECT_LT(took_ms, serial_ms) << "the GPUs were read in turn";
  EXPECT_EQ(session->read_lanes(), 3u);
}

TEST_F(NvmlSessionTest, AHungInitRetriedHoldsOnePendingAttempt) {
  // A driver stuck in nvmlInit: every session of one opener waits on the
  // same attempt instead of starting a thread of its own.
  auto tasks = [] {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
    return n;
  };
  setenv("FAKE_NVML_SCENARIO", WriteFile("hung.json", R"({"init_delay_ms": 600000, "gpus": [{}]})").c_str(), 1);
  NvmlOptions options;
  options.library_path = FAKE_NVML_LIBRARY;
  options.call_deadline = std::chrono::milliseconds(100);
  options.opener = std::make_shared<gpudoctor::DriverOpener>(options.call_deadline);
  const std::size_t before = tasks();
  for (int retry = 0; retry < 5; ++retry) {
    auto session = NvmlSession::Open(options);
    const SystemStatus status = session->Sample();
    EXPECT_FALSE(status.nvml_loaded);
    EXPECT_NE(status.nvml_error.find("nvmlInit_v2"), std::string::npos) << status.nvml_error;
    EXPECT_TRUE(session->HasAbandonedCalls());
  }
  EXPECT_LE(tasks(), before + 1) << "a thread per retry";
}

// Eight GPUs of an NVSwitch board, 18 active NVLink links each; GPU 0 and
// GPU 1 get `gpu0_faults` and `gpu1_faults`.
std::string EightLinkedGpus(const std::string& gpu0_faults, const std::string& gpu1_faults) {
  std::string links;
  for (int l = 0; l < 18; ++l) links += std::string(l ? "," : "") + R"({"link": )" + std::to_string(l) + R"(, "active": true})";
  std::string gpus;
  for (int i = 0; i < 8; ++i) {
    char bus[16];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x18 + i);
    const std::string& faults = i == 0 ? gpu0_faults : i == 1 ? gpu1_faults : std::string("[]");
    gpus += std::string(i ? "," : "") + R"({"name": "NVIDIA H100 80GB HBM3", "pci_bus_id": ")" + bus +
            R"(", "temperature_c": 40, "nvlinks": [)" + links + R"(], "faults": )" + faults + "}";
  }
  return R"({"driver_version": "550.90.07", "gpus": [)" + gpus + "]}";
}

// The fake's count of NVML calls answered (fake_load_hook.cpp).
unsigned long long FakeCalls() {
  void* lib = dlopen(FAKE_NVML_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return 0;
  auto fn = reinterpret_cast<unsigned long long (*)()>(dlsym(lib, "fake_nvml_calls"));
  unsigned long long n = fn ? fn() : 0;
  dlclose(lib);
  return n;
}

class NvlinkPeerCacheTest : public NvmlSessionTest {
 protected:
  std::unique_ptr<NvmlSession> OpenEight(const std::string& scenario, std::chrono::milliseconds refresh) {
    setenv("FAKE_NVML_SCENARIO", WriteFile("eight.json", scenario).c_str(), 1);
    NvmlOptions options;
    options.library_path = FAKE_NVML_LIBRARY;
    options.call_deadline = std::chrono::milliseconds(2000);
    options.read_gpm = false;
    options.nvlink_peers_refresh = refresh;
    return NvmlSession::Open(options);
  }
  // NVML calls and wall time of one Sample() after the first, averaged.
  std::pair<double, double> CostPerSample(NvmlSession& session, int samples) {
    session.Sample();
    const unsigned long long before = FakeCalls();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < samples; ++i) {
      SystemStatus s = session.Sample();
      EXPECT_EQ(s.gpus.size(), 8u);
      for (const auto& g : s.gpus) EXPECT_EQ(g.nvlink_peers.size(), 7u) << "GPU " << g.index;
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return {static_cast<double>(FakeCalls() - before) / samples, ms / samples};
  }
};

// Read at every sample, the matrix costs each GPU the device count and, per
// peer, its handle and the P2P status: 8 x (1 + 7 x 2) = 120 calls a sample.
// Kept for the refresh interval, none of them. The figures go to
// BENCHMARKS.md (printed here; times are not asserted).
TEST_F(NvlinkPeerCacheTest, ReadAtALowerRateSavesTheMatrixCalls) {
  auto every = OpenEight(EightLinkedGpus("[]", "[]"), std::chrono::milliseconds(0));
  auto [every_calls, every_ms] = CostPerSample(*every, 20);
  every.reset();
  auto cached = OpenEight(EightLinkedGpus("[]", "[]"), std::chrono::minutes(5));
  auto [cached_calls, cached_ms] = CostPerSample(*cached, 20);
  std::printf("nvlink P2P matrix on 8 GPUs: every sample %.1f calls %.3f ms; cached %.1f calls %.3f ms\n",
              every_calls, every_ms, cached_calls, cached_ms);
  EXPECT_EQ(every_calls - cached_calls, 120.0);
}

// A link that goes down is seen in the very next sample, and the matrix is
// read again at once; a GPU whose states held keeps its cached matrix. Both
// GPU 0 and GPU 1 have their P2P call fail from 1 s on: only GPU 0, whose
// link went down then, makes the call.
TEST_F(NvlinkPeerCacheTest, AChangedLinkStateIsSeenInTheNextSample) {
  const std::string p2p_fails = R"({"kind": "error", "field": "nvlink_peers", "error": "NVML_ERROR_UNKNOWN", "at_s": 1})";
  auto session = OpenEight(
      EightLinkedGpus("[" + p2p_fails + R"(, {"kind": "link_down", "link": 0, "at_s": 1}])", "[" + p2p_fails + "]"),
      std::chrono::hours(1));
  SystemStatus first = session->Sample();
  ASSERT_EQ(first.gpus.size(), 8u);
  ASSERT_EQ(first.gpus[0].nvlink_peers.size(), 7u);
  EXPECT_EQ(first.gpus[0].nvlink_peers[0].status, NVML_P2P_STATUS_OK);
  EXPECT_TRUE(first.gpus[0].field_errors.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  SystemStatus next = session->Sample();
  const auto& g0 = next.gpus[0];
  EXPECT_EQ(g0.nvlinks.at(0).active, false);
  EXPECT_EQ(g0.nvlinks.at(1).active, true);
  EXPECT_EQ(g0.field_errors.count("nvlink_peers"), 1u) << "GPU 0's link changed: read again";
  const auto& g1 = next.gpus[1];
  EXPECT_EQ(g1.field_errors.count("nvlink_peers"), 0u) << "GPU 1's states held: no P2P call";
  ASSERT_EQ(g1.nvlink_peers.size(), 7u);
  EXPECT_EQ(g1.nvlink_peers[0].status, NVML_P2P_STATUS_OK);
  EXPECT_EQ(g1.nvlink_peers[0].peer_pci_bus_id, "0000:18:00.0");
}

}  // namespace
}  // namespace fake_test
