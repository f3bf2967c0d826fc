#include <gtest/gtest.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus Full(std::uint64_t reasons = 0, std::int64_t sm_mhz = 1980) {
  GpuStatus g = HealthyGpu(0);
  g.utilization_gpu_percent = 100;
  g.clock_event_reasons_mask = reasons;
  g.clocks_sm_mhz = sm_mhz;
  return g;
}

TEST(SaturatedUtilizationRule, FullLoadIsInfo) {
  auto d = RunRule(kSaturatedUtilizationRule, RepeatedReadings({Full()}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "utilization.saturated");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  EXPECT_EQ(f.evidence[0].value, 100);
}

TEST(SaturatedUtilizationRule, ClocksHeldDownByASlowdownIsAWarning) {
  auto d = RunRule(kSaturatedUtilizationRule,
                   RepeatedReadings({Full(ClockReasonBit("hw_thermal_slowdown"), 1400)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_NE(f.evidence[1].text.en.find("HW thermal slowdown"), std::string::npos);
}

TEST(SaturatedUtilizationRule, PowerCapAtTheDesignLimitStaysInfo) {
  auto d = RunRule(kSaturatedUtilizationRule,
                   RepeatedReadings({Full(ClockReasonBit("sw_power_cap"), 1500)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(SaturatedUtilizationRule, PowerCapBelowTheDefaultLimitIsAWarning) {
  GpuStatus g = Full(ClockReasonBit("sw_power_cap"), 1500);
  g.power_enforced_limit_w = 450;
  auto d = RunRule(kSaturatedUtilizationRule, RepeatedReadings({g}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(SaturatedUtilizationRule, QuietAtNormalLoadOrWithoutUtilisation) {
  GpuStatus unknown = Full();
  unknown.index = 1;
  unknown.pci_bus_id = HealthyGpu(1).pci_bus_id;
  unknown.utilization_gpu_percent.reset();
  auto d = RunRule(kSaturatedUtilizationRule, RepeatedReadings({HealthyGpu(0), unknown}, 10));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
