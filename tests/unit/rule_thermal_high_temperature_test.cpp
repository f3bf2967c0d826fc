#include <gtest/gtest.h>

#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus AtTemperature(unsigned index, std::int64_t celsius) {
  GpuStatus g = HealthyGpu(index);
  g.temperature_c = celsius;
  return g;
}

TEST(HighTemperatureRule, SustainedHeatIsAWarning) {
  auto d =
      RunRule(kHighTemperatureRule, RepeatedReadings({HealthyGpu(0), AtTemperature(1, 88)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "thermal.high_temperature");
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0], HealthyGpu(1).pci_bus_id);
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_EQ(f.evidence[0].value, 88);
  EXPECT_EQ(f.evidence[0].unit, "celsius");
}

TEST(HighTemperatureRule, BriefHeatIsInfo) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  readings[4][0].temperature_c = 90;
  auto d = RunRule(kHighTemperatureRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].evidence[0].value, 90);
}

TEST(HighTemperatureRule, SingleHotReadingIsSustained) {
  auto d = RunRule(kHighTemperatureRule, RepeatedReadings({AtTemperature(0, 91)}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(HighTemperatureRule, QuietAtOrBelowTheThreshold) {
  auto d =
      RunRule(kHighTemperatureRule, RepeatedReadings({HealthyGpu(0), AtTemperature(1, 85)}, 10));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.verdict, Severity::kOk);
}

TEST(HighTemperatureRule, FollowsTheConfiguredThreshold) {
  auto input = RepeatedReadings({AtTemperature(0, 80)}, 5);
  input.config.thresholds.temperature_high_c = 75;
  auto d = RunRule(kHighTemperatureRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(HighTemperatureRule, HotMemoryIsAWarning) {
  GpuStatus g = HealthyGpu(0);
  g.temperature_memory_max_c = 95;
  g.memory_temperature_c = 92;
  auto d = RunRule(kHighTemperatureRule, RepeatedReadings({g}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].evidence[0].value, 92);
  EXPECT_NE(d.findings[0].title.en.find("memory"), std::string::npos);
}

TEST(HighTemperatureRule, MemoryWithoutItsMaximumIsNotJudged) {
  GpuStatus g = HealthyGpu(0);
  g.memory_temperature_c = 99;  // no temperature_memory_max_c to compare with
  auto d = RunRule(kHighTemperatureRule, RepeatedReadings({g}, 3));
  EXPECT_TRUE(d.findings.empty());
}

TEST(HighTemperatureRule, MissingTemperaturesDoNotFire) {
  GpuStatus g = HealthyGpu(0);
  g.temperature_c.reset();
  g.memory_temperature_c.reset();
  g.temperature_memory_max_c = 95;
  auto d = RunRule(kHighTemperatureRule, RepeatedReadings({g}, 3));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
