#include <gtest/gtest.h>

#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus Starved(unsigned index = 0) {
  GpuStatus g = HealthyGpu(index);
  g.utilization_gpu_percent = 10;
  return g;
}

TEST(LowUtilizationRule, HeldButStarvedGpuIsInfo) {
  auto d = RunRule(kLowUtilizationRule, RepeatedReadings({HealthyGpu(0), Starved(1)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "utilization.low");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(1).pci_bus_id});
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].value, 10);
  EXPECT_NE(f.evidence[1].text.en.find("python3"), std::string::npos);
}

TEST(LowUtilizationRule, MemoryInUseWithoutVisibleProcessesCounts) {
  GpuStatus g = Starved();
  g.processes = std::vector<GpuProcess>{};  // another container's pids are not visible
  auto d = RunRule(kLowUtilizationRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].evidence[1].unit, "bytes");
}

TEST(LowUtilizationRule, AnIdleGpuWithNothingOnItIsQuiet) {
  GpuStatus idle = HealthyGpu(0);
  idle.utilization_gpu_percent = 0;
  idle.processes = std::vector<GpuProcess>{};
  idle.memory_used_bytes = 512LL << 20;
  auto d = RunRule(kLowUtilizationRule, RepeatedReadings({idle}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(LowUtilizationRule, LeavesATransferBoundGpuToThePcieRule) {
  GpuStatus g = Starved();
  g.pcie_tx_bytes_per_s = 40LL * 1000 * 1000 * 1000;  // most of a Gen5 x16 link
  auto d = RunRule(kLowUtilizationRule, RepeatedReadings({g}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(LowUtilizationRule, QuietOnABusyGpuOrWithoutUtilisation) {
  GpuStatus unknown = Starved(1);
  unknown.utilization_gpu_percent.reset();
  auto d = RunRule(kLowUtilizationRule, RepeatedReadings({HealthyGpu(0), unknown}, 10));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
