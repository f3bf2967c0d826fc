#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(StressPowerBrakeRule, BrakeUnderLoadIsAWarningWithItsShare) {
  GpuStatus brake = WithReason(HealthyGpu(0), "hw_power_brake_slowdown");
  auto input = StressInput({{HealthyGpu(0)}, {HealthyGpu(0)}, {brake}, {brake}, {HealthyGpu(0)}});
  auto d = RunRule(kStressPowerBrakeRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.power_brake");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.title.en.find("hit the HW power brake 1.5 s into the load"), std::string::npos) << f.title.en;
  // Load from 0.5 s: the readings at 1..4 s are under load, two of them braking.
  EXPECT_NE(f.evidence[0].text.en.find("in 2 of 4 samples under load"), std::string::npos)
      << f.evidence[0].text.en;
}

TEST(StressPowerBrakeRule, HwSlowdownIsNamedAsSuch) {
  auto input = StressInput({{HealthyGpu(0)}, {WithReason(HealthyGpu(0), "hw_slowdown")}});
  auto d = RunRule(kStressPowerBrakeRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].title.en.find("hit HW slowdown"), std::string::npos);
}

TEST(StressPowerBrakeRule, BrakeBeforeTheLoadIsNotTheLoads) {
  auto input = StressInput({{WithReason(HealthyGpu(0), "hw_power_brake_slowdown")}, {HealthyGpu(0)}});
  EXPECT_TRUE(RunRule(kStressPowerBrakeRule, input).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
