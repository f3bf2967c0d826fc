#include <gtest/gtest.h>

#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"
#include "support/zh_check.h"

namespace gpudoctor::testing {
namespace {

GpuStatus DramGpu(std::optional<double> dram) {
  GpuStatus g = HealthyGpu(0);
  g.gpm_supported = true;
  g.gpm_dram_bandwidth_percent = dram;
  g.gpm_sm_activity_percent = 60;
  return g;
}

TEST(MemoryBandwidthBoundRule, SaturatedDramIsInformation) {
  auto d = RunRule(kMemoryBandwidthBoundRule, RepeatedReadings({DramGpu(92)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "memory.bandwidth_bound");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.evidence[0].value, 92);
  EXPECT_EQ(f.evidence[0].unit, "percent");
  EXPECT_GE(f.actions.size(), 2u);
  EXPECT_TRUE(ChineseTextProblems(f).empty());
}

TEST(MemoryBandwidthBoundRule, QuietBelowSaturationOrWithoutGpm) {
  GpuStatus moderate = DramGpu(50);
  GpuStatus none = DramGpu(std::nullopt);
  none.index = 1;
  none.pci_bus_id = "0000:02:00.0";
  auto d = RunRule(kMemoryBandwidthBoundRule, RepeatedReadings({moderate, none}, 10));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
