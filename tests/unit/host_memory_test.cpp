#include "collect/host_memory.h"

#include <gtest/gtest.h>

#include "support/temp_files.h"

namespace gpudoctor {
namespace host_memory_unit_local {

MemorySnapshot SnapshotAt(const test::TempDir& root, std::chrono::seconds at) {
  CollectContext ctx;
  ctx.root = root.path();
  MemorySnapshot snap = ReadMemory(ctx);
  snap.taken = std::chrono::steady_clock::time_point(at);
  return snap;
}

TEST(HostMemory, SwappingHostHasRates) {
  test::TempDir root;
  root.Write("proc/meminfo",
             "MemTotal: 32000000 kB\nMemFree: 100000 kB\nMemAvailable: 800000 kB\n"
             "SwapTotal: 8000000 kB\nSwapFree: 2000000 kB\n");
  root.Write("proc/vmstat", "pswpin 1000\npswpout 5000\npgmajfault 200\n");
  auto a = SnapshotAt(root, std::chrono::seconds(10));
  root.Write("proc/vmstat", "pswpin 3000\npswpout 5400\npgmajfault 1200\n");
  auto b = SnapshotAt(root, std::chrono::seconds(14));

  auto facts = MemoryBetween(a, b, 4096);
  EXPECT_DOUBLE_EQ(facts.window_s, 4.0);
  EXPECT_EQ(facts.total_bytes, 32000000ull * 1024);
  EXPECT_EQ(facts.available_bytes, 800000ull * 1024);
  EXPECT_EQ(facts.used_bytes, 31200000ull * 1024);
  EXPECT_NEAR(facts.used_percent.value_or(0), 97.5, 1e-9);
  EXPECT_EQ(facts.swap_used_bytes, 6000000ull * 1024);
  EXPECT_DOUBLE_EQ(facts.swap_in_bytes_per_s.value_or(-1), 500.0 * 4096);   // 2000 pages / 4 s
  EXPECT_DOUBLE_EQ(facts.swap_out_bytes_per_s.value_or(-1), 100.0 * 4096);  // 400 pages / 4 s
  EXPECT_DOUBLE_EQ(facts.major_faults_per_s.value_or(-1), 250.0);
}

TEST(HostMemory, QuietHostAndMissingVmstat) {
  test::TempDir root;
  root.Write("proc/meminfo",
             "MemTotal: 1000 kB\nMemAvailable: 900 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n");
  auto a = SnapshotAt(root, std::chrono::seconds(0));
  auto b = SnapshotAt(root, std::chrono::seconds(1));
  auto facts = MemoryBetween(a, b);
  EXPECT_EQ(facts.swap_used_bytes, 0u);
  EXPECT_EQ(facts.swap_in_bytes_per_s, std::nullopt);  // no /proc/vmstat
  bool vmstat_reported = false;
  for (const auto& s : facts.sources) {
    if (s.source == "/proc/vmstat") vmstat_reported = !s.available && !s.why.empty();
  }
  EXPECT_TRUE(vmstat_reported);
}

TEST(HostMemory, RamToGpuRatio) {
  const std::uint64_t gib = 1ull << 30;
  auto ok = HostRamToGpuMemory(1024 * gib, 320 * gib);
  ASSERT_TRUE(ok.has_value());
  EXPECT_NEAR(ok->ratio, 3.2, 1e-9);
  EXPECT_EQ(ok->verdict, "ok");
  EXPECT_EQ(HostRamToGpuMemory(240 * gib, 160 * gib)->verdict, "advisory");
  EXPECT_EQ(HostRamToGpuMemory(64 * gib, 640 * gib)->verdict, "low");
  EXPECT_EQ(HostRamToGpuMemory(std::nullopt, 80 * gib), std::nullopt);
  EXPECT_EQ(HostRamToGpuMemory(64 * gib, 0), std::nullopt);
}

}  // namespace host_memory_unit_local
}  // namespace gpudoctor
