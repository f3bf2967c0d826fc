#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(StressPowerSupplyRule, TwoGpusLostInTheSameSecondPointToTheSupply) {
  auto input = StressInput({{HealthyGpu(0), HealthyGpu(1), HealthyGpu(2)},
                            {HealthyGpu(0), StressLostGpu(1), StressLostGpu(2)}});
  auto d = RunRule(kStressPowerSupplyRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.power_supply");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, (std::vector<std::string>{HealthyGpu(1).pci_bus_id, HealthyGpu(2).pci_bus_id}));
  EXPECT_NE(f.title.en.find("2 GPUs lost within 0 s"), std::string::npos) << f.title.en;
  // HealthyGpu draws 400 W: both drew it just before.
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_NE(f.evidence[0].text.en.find("drawing 400 W"), std::string::npos) << f.evidence[0].text.en;
  EXPECT_EQ(f.evidence.back().value, 800.0);
}

TEST(StressPowerSupplyRule, LossesSecondsApartAreNotTogether) {
  auto input = StressInput({{HealthyGpu(0), HealthyGpu(1)},
                            {StressLostGpu(0), HealthyGpu(1)},
                            {StressLostGpu(0), HealthyGpu(1)},
                            {StressLostGpu(0), StressLostGpu(1)}});
  EXPECT_TRUE(RunRule(kStressPowerSupplyRule, input).findings.empty());
}

TEST(StressPowerSupplyRule, OnlyAStressRunIsJudged) {
  // The same losses without an active run: the rule is skipped, not listed
  // as not checked (a diagnose never provokes).
  auto input = InputFromReadings({{HealthyGpu(0), HealthyGpu(1)}, {StressLostGpu(0), StressLostGpu(1)}});
  auto d = RunRule(kStressPowerSupplyRule, input);
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(d.not_checked.empty());
  EXPECT_TRUE(d.rules_run.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
