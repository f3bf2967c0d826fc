#include <gtest/gtest.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

// Busy and capped at `limit_w` (default limit 700 W).
GpuStatus Capped(double limit_w, double enforced_w) {
  GpuStatus g = HealthyGpu(0);
  g.utilization_gpu_percent = 100;
  g.clock_event_reasons_mask = ClockReasonBit("sw_power_cap");
  g.power_limit_w = limit_w;
  g.power_enforced_limit_w = enforced_w;
  g.power_draw_w = enforced_w - 1;
  return g;
}

TEST(PowerCapRule, AtTheDefaultLimitIsInfo) {
  auto d = RunRule(kPowerCapRule, RepeatedReadings({Capped(700, 700)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "power.cap");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].value, 100);
  EXPECT_NEAR(*f.evidence[1].value, 699.0 / 700.0, 1e-9);
}

TEST(PowerCapRule, LoweredLimitIsAWarningWithTheRestoreCommand) {
  auto d = RunRule(kPowerCapRule, RepeatedReadings({Capped(500, 500)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_FALSE(f.actions.empty());
  EXPECT_EQ(f.actions[0].command, "sudo nvidia-smi -i 0 -pl 700");
}

TEST(PowerCapRule, LimitEnforcedFromOutsidePointsToTheBmc) {
  auto d = RunRule(kPowerCapRule, RepeatedReadings({Capped(700, 450)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].actions[0].command.find("ipmitool"), std::string::npos);
}

TEST(PowerCapRule, QuietWhenNotBusyOrFarFromTheLimit) {
  GpuStatus idle = Capped(700, 700);
  idle.utilization_gpu_percent = 10;
  GpuStatus low_draw = Capped(700, 700);
  low_draw.index = 1;
  low_draw.pci_bus_id = HealthyGpu(1).pci_bus_id;
  low_draw.power_draw_w = 500;
  auto d = RunRule(kPowerCapRule, RepeatedReadings({idle, low_draw}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PowerCapRule, QuietOnAHealthyGpuAndWithoutPowerReadings) {
  GpuStatus no_power = Capped(700, 700);
  no_power.index = 1;
  no_power.pci_bus_id = HealthyGpu(1).pci_bus_id;
  no_power.power_draw_w.reset();
  auto d = RunRule(kPowerCapRule, RepeatedReadings({HealthyGpu(0), no_power}, 10));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
