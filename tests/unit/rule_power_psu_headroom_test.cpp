#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

// Eight 700 W GPUs (5600 W of limits) behind a supply of `capacity_w`.
DiagnosisInput EightH100(std::optional<double> capacity_w) {
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 8; ++i) gpus.push_back(HealthyGpu(i));
  DiagnosisInput input = RepeatedReadings(gpus, 2);
  input.config.psu_capacity_w = capacity_w;
  return input;
}

TEST(PowerPsuHeadroomRule, LimitsAboveTheCapacityAreCritical) {
  auto d = RunRule(kPowerPsuHeadroomRule, EightH100(5000));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "power.psu_headroom");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus.size(), 8u);
  EXPECT_EQ(*f.evidence[0].value, 5600.0);
  EXPECT_EQ(f.evidence[0].unit, "watts");
  EXPECT_EQ(*f.evidence[1].value, 5000.0);
  // 5000 / 1.2 / 8 = 520.8: within the boards' 200 W minimum.
  EXPECT_EQ(f.actions[0].command, "sudo nvidia-smi -pl 520");
}

TEST(PowerPsuHeadroomRule, LessThanTwentyPercentHeadroomIsAWarning) {
  auto d = RunRule(kPowerPsuHeadroomRule, EightH100(6400));  // needs 6720 W
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(PowerPsuHeadroomRule, ALoweredLimitStillCountsItsDefault) {
  DiagnosisInput input = EightH100(6800);  // 21 % above 5600 W: enough
  EXPECT_TRUE(RunRule(kPowerPsuHeadroomRule, input).findings.empty());
  for (auto& gpu : input.gpus) gpu.readings.back().power_enforced_limit_w = 400;
  EXPECT_TRUE(RunRule(kPowerPsuHeadroomRule, input).findings.empty());
  input.config.psu_capacity_w = 5000;
  ASSERT_EQ(RunRule(kPowerPsuHeadroomRule, input).findings.size(), 1u);
}

TEST(PowerPsuHeadroomRule, UnsetCapacityOrUnknownLimitsAreNotChecked) {
  auto unset = RunRule(kPowerPsuHeadroomRule, EightH100(std::nullopt));
  EXPECT_TRUE(unset.findings.empty());
  ASSERT_EQ(unset.not_checked.size(), 1u);
  EXPECT_NE(unset.not_checked[0].reason.en.find("psu_capacity_w"), std::string::npos);

  GpuStatus no_limits = HealthyGpu(0);
  no_limits.power_limit_w.reset();
  no_limits.power_default_limit_w.reset();
  no_limits.power_enforced_limit_w.reset();
  DiagnosisInput input = RepeatedReadings({no_limits}, 1);
  input.config.psu_capacity_w = 1000;
  auto d = RunRule(kPowerPsuHeadroomRule, input);
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
}

}  // namespace
}  // namespace gpudoctor::testing
