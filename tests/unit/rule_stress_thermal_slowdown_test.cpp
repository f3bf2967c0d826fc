#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(StressThermalSlowdownRule, SaysAfterHowManySeconds) {
  GpuStatus hot = WithReason(HealthyGpu(0), "sw_thermal_slowdown");
  hot.temperature_c = 88;
  auto input = StressInput({{HealthyGpu(0)}, {HealthyGpu(0)}, {HealthyGpu(0)}, {hot}});
  auto d = RunRule(kStressThermalSlowdownRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.thermal_slowdown");
  EXPECT_NE(f.title.en.find("slowed down for heat 2.5 s into the load"), std::string::npos) << f.title.en;
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[1].value, 88.0);
}

TEST(StressThermalSlowdownRule, CoolGpuIsQuiet) {
  auto input = StressInput({{HealthyGpu(0)}, {WithReason(HealthyGpu(0), "sw_power_cap")}});
  EXPECT_TRUE(RunRule(kStressThermalSlowdownRule, input).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
