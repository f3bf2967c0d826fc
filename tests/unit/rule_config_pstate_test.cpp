#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus At(unsigned index, std::int64_t pstate, std::int64_t util_percent) {
  GpuStatus g = HealthyGpu(index);
  g.pstate = pstate;
  g.utilization_gpu_percent = util_percent;
  return g;
}

TEST(ConfigPstateRule, BusyInP8IsAWarning) {
  GpuStatus g = At(1, 8, 95);
  auto d = RunRule(kConfigPstateRule, RepeatedReadings({HealthyGpu(0), g}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "config.pstate");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{g.pci_bus_id});
  EXPECT_EQ(f.evidence[0].value, 100.0);
  EXPECT_NE(f.title.en.find("P8"), std::string::npos);
}

TEST(ConfigPstateRule, SingleReadingIsEnough) {
  auto d = RunRule(kConfigPstateRule, RepeatedReadings({At(0, 5, 70)}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(ConfigPstateRule, QuietInP2IdleInP8OrBrieflyLow) {
  EXPECT_TRUE(RunRule(kConfigPstateRule, RepeatedReadings({At(0, 2, 99)}, 5)).findings.empty());
  EXPECT_TRUE(RunRule(kConfigPstateRule, RepeatedReadings({At(0, 8, 0)}, 5)).findings.empty());
  std::vector<std::vector<GpuStatus>> readings(10, {At(0, 0, 90)});
  readings[0][0].pstate = 8;  // ramping up
  readings[1][0].pstate = 5;
  EXPECT_TRUE(RunRule(kConfigPstateRule, InputFromReadings(readings)).findings.empty());
}

TEST(ConfigPstateRule, QuietWithoutPstateOrUtilisation) {
  GpuStatus mig = At(0, 8, 0);
  mig.utilization_gpu_percent.reset();  // MIG parents report no utilisation
  GpuStatus no_pstate = At(1, 0, 90);
  no_pstate.pstate.reset();
  auto d = RunRule(kConfigPstateRule, RepeatedReadings({mig, no_pstate}, 3));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
