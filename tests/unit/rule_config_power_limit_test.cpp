#include <gtest/gtest.h>

#include "core/clock_reasons.h"
#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus Lowered(unsigned index, double limit_w) {
  GpuStatus g = HealthyGpu(index);
  g.power_limit_w = limit_w;
  g.power_enforced_limit_w = limit_w;
  return g;
}

TEST(ConfigPowerLimitRule, LoweredLimitIsInfoEvenWhenItCapsABusyGpu) {
  // The slowdown itself is power.cap's warning; this rule names the setting.
  GpuStatus g = Lowered(1, 500);
  g.power_draw_w = 499;
  g.clock_event_reasons_mask = ClockReasonBit("sw_power_cap");
  auto d = RunRule(kConfigPowerLimitRule, RepeatedReadings({HealthyGpu(0), g}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "config.power_limit");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.gpus, std::vector<std::string>{g.pci_bus_id});
  EXPECT_EQ(f.evidence[0].value, 500.0);
  EXPECT_EQ(f.evidence[1].value, 100.0);
  EXPECT_EQ(f.actions[0].command, "sudo nvidia-smi -i 1 -pl 700");
}

TEST(ConfigPowerLimitRule, LoweredLimitOnAnIdleGpuIsInfo) {
  GpuStatus g = Lowered(0, 500);
  g.utilization_gpu_percent = 0;
  auto d = RunRule(kConfigPowerLimitRule, RepeatedReadings({g}, 5));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(ConfigPowerLimitRule, PlatformCapNeedsNoNvidiaSmiPl) {
  GpuStatus g = HealthyGpu(0);
  g.power_enforced_limit_w = 600;  // software limit stays at the default 700
  auto d = RunRule(kConfigPowerLimitRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  for (const auto& a : d.findings[0].actions) EXPECT_EQ(a.command.find("-pl"), std::string::npos);
}

TEST(ConfigPowerLimitRule, QuietAtTheDefaultWithinRoundingAndWithoutDefault) {
  GpuStatus rounding = Lowered(1, 690);
  GpuStatus no_default = Lowered(2, 300);
  no_default.power_default_limit_w.reset();
  auto d = RunRule(kConfigPowerLimitRule, RepeatedReadings({HealthyGpu(0), rounding, no_default}, 3));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
