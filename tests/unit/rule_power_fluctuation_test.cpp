#include <gtest/gtest.h>

#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

// One GPU whose power draw follows `draws_w`, one reading each.
DiagnosisInput WithDraws(const std::vector<double>& draws_w, GpuStatus base = HealthyGpu(0)) {
  std::vector<std::vector<GpuStatus>> readings;
  for (double w : draws_w) {
    GpuStatus g = base;
    g.power_draw_w = w;
    readings.push_back({g});
  }
  return InputFromReadings(readings);
}

TEST(PowerFluctuationRule, SwingingDrawIsAWarning) {
  auto d =
      RunRule(kPowerFluctuationRule, WithDraws({200, 650, 210, 640, 190, 660, 200, 650, 220, 640}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "power.fluctuation");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].value, 470);  // peak to peak, watts
  EXPECT_EQ(f.evidence[0].unit, "watts");
}

TEST(PowerFluctuationRule, AJobStartingIsAStepNotAFluctuation) {
  auto d = RunRule(kPowerFluctuationRule, WithDraws({90, 90, 90, 90, 90, 650, 650, 650, 650, 650}));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PowerFluctuationRule, OrdinaryNoiseIsQuiet) {
  auto d =
      RunRule(kPowerFluctuationRule, WithDraws({400, 410, 390, 405, 395, 400, 415, 385, 400, 402}));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PowerFluctuationRule, TooFewReadingsAreNotJudged) {
  auto d = RunRule(kPowerFluctuationRule, WithDraws({200, 650, 200, 650}));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PowerFluctuationRule, AnIdleGpuIsNotJudged) {
  GpuStatus idle = HealthyGpu(0);
  idle.utilization_gpu_percent = 0;
  idle.processes = std::vector<GpuProcess>{};
  idle.memory_used_bytes = 0;
  auto d = RunRule(kPowerFluctuationRule,
                   WithDraws({200, 650, 210, 640, 190, 660, 200, 650, 220, 640}, idle));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PowerFluctuationRule, MissingDrawOrLimitIsQuiet) {
  GpuStatus no_limit = HealthyGpu(0);
  no_limit.power_limit_w.reset();
  no_limit.power_enforced_limit_w.reset();
  auto d =
      RunRule(kPowerFluctuationRule, WithDraws({200, 650, 210, 640, 190, 660, 200, 650}, no_limit));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
