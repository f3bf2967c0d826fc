#include <gtest/gtest.h>

#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

constexpr std::int64_t kPressureGiB = 1LL << 30;

GpuStatus Full(std::int64_t used_gib) {
  GpuStatus g = HealthyGpu(0);
  g.memory_used_bytes = used_gib * kPressureGiB;
  g.memory_free_bytes = (80 - used_gib) * kPressureGiB;
  g.processes = std::vector<GpuProcess>{
      {100, "python3", 10 * kPressureGiB}, {200, "trainer", 60 * kPressureGiB}, {300, "jupyter", 8 * kPressureGiB}};
  return g;
}

bool HasCommand(const Finding& f, const std::string& needle) {
  for (const Action& a : f.actions) {
    if (a.command.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(MemoryPressureRule, NearlyFullMemoryIsAWarning) {
  auto d = RunRule(kMemoryPressureRule, RepeatedReadings({Full(78)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "memory.pressure");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  ASSERT_EQ(f.evidence.size(), 3u);
  EXPECT_EQ(f.evidence[0].value, 78.0 * kPressureGiB);
  EXPECT_EQ(f.evidence[0].unit, "bytes");
  EXPECT_NE(f.evidence[0].text.en.find("78 GiB of 80 GiB"), std::string::npos);
  // The biggest holder first.
  EXPECT_EQ(f.evidence[2].text.en.find("holding the most: `trainer`"), 0u);
  EXPECT_TRUE(HasCommand(f, "empty_cache"));
  EXPECT_FALSE(HasCommand(f, "rmmod"));
}

// A wedged GPU (most queries failing) keeps its dead jobs' memory: no batch
// size advice there; gpu.lost reports the GPU.
TEST(MemoryPressureRule, QuietOnAGpuFailingMostQueries) {
  GpuStatus g = Full(78);
  for (const char* field : {"temperature_c", "pstate", "power_draw_w", "utilization_gpu_percent",
                            "fan_speed_percent"}) {
    g.field_errors[field] = "nvidia-smi showed ERR! (the query failed)";
  }
  EXPECT_TRUE(RunRule(kMemoryPressureRule, RepeatedReadings({g}, 10)).findings.empty());
}

TEST(MemoryPressureRule, IdleGpuWithMemoryHeldPointsToTheStaleProcess) {
  GpuStatus g = Full(76);
  g.utilization_gpu_percent = 0;
  g.processes = std::vector<GpuProcess>{};
  auto d = RunRule(kMemoryPressureRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_TRUE(HasCommand(d.findings[0], "--query-compute-apps"));
  EXPECT_TRUE(HasCommand(d.findings[0], "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"));
}

TEST(MemoryPressureRule, BriefPeakIsQuiet) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  readings[5][0] = Full(79);
  auto d = RunRule(kMemoryPressureRule, InputFromReadings(readings));
  EXPECT_TRUE(d.findings.empty());
}

TEST(MemoryPressureRule, QuietOnAHealthyGpuOrWithoutMemoryFigures) {
  GpuStatus unknown = Full(79);
  unknown.index = 1;
  unknown.pci_bus_id = HealthyGpu(1).pci_bus_id;
  unknown.memory_total_bytes.reset();
  auto d = RunRule(kMemoryPressureRule, RepeatedReadings({HealthyGpu(0), unknown}, 10));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
