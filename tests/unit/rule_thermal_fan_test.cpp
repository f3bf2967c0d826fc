#include <gtest/gtest.h>

#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus WithFans(std::vector<std::int64_t> fans, std::int64_t celsius, unsigned index = 0) {
  GpuStatus g = HealthyGpu(index);
  g.fan_speeds_percent = fans;
  g.fan_speed_percent = fans.front();
  g.temperature_c = celsius;
  return g;
}

TEST(FanRule, StoppedFanWhileHotIsAWarning) {
  GpuStatus g = WithFans({45, 0}, 78);
  auto d = RunRule(kFanRule, RepeatedReadings({g}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "thermal.fan");
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0], g.pci_bus_id);
  EXPECT_EQ(f.evidence[0].value, 100);
}

TEST(FanRule, StoppedFanWithTheGpuOverheatingIsCritical) {
  auto d = RunRule(kFanRule, RepeatedReadings({WithFans({0}, 88)}, 1));
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
}

TEST(FanRule, StoppedFanOnACoolGpuIsZeroSpeedMode) {
  auto d = RunRule(kFanRule, RepeatedReadings({WithFans({0, 0}, 40)}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(FanRule, PassivelyCooledGpuIsNeverJudged) {
  GpuStatus g = HealthyGpu(0);  // no fan reading, as on data-centre boards
  g.temperature_c = 90;
  auto d = RunRule(kFanRule, RepeatedReadings({g}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(FanRule, UnreadableFanIsAWarning) {
  GpuStatus g = HealthyGpu(0);
  g.field_errors["fan_speeds_percent"] = "unknown error";
  auto d = RunRule(kFanRule, RepeatedReadings({g}, 3));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("unknown error"), std::string::npos);
}

// A table cell showing ERR! for the fan alone is the fan's problem; with most
// other cells ERR! too it is the whole GPU's, which gpu.lost reports.
TEST(FanRule, ErrFanIsAWarningUnlessTheWholeGpuAnswersWithErrors) {
  GpuStatus g = HealthyGpu(0);
  g.field_errors["fan_speed_percent"] = "nvidia-smi showed ERR! (the query failed)";
  auto d = RunRule(kFanRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  for (const char* field : {"temperature_c", "pstate", "power_draw_w", "utilization_gpu_percent"}) {
    g.field_errors[field] = "nvidia-smi showed ERR! (the query failed)";
  }
  EXPECT_TRUE(RunRule(kFanRule, RepeatedReadings({g}, 1)).findings.empty());
}

TEST(FanRule, PermissionErrorSaysNothingAboutTheFan) {
  GpuStatus g = HealthyGpu(0);
  g.field_errors["fan_speed_percent"] = "insufficient permissions";
  g.field_errors["fan_speeds_percent"] = "no permission";
  auto d = RunRule(kFanRule, RepeatedReadings({g}, 3));
  EXPECT_TRUE(d.findings.empty());
}

TEST(FanRule, FansPinnedWhileTooHotIsAWarning) {
  auto d = RunRule(kFanRule, RepeatedReadings({WithFans({100, 100}, 88)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].evidence[0].value, 100);
}

TEST(FanRule, FansPinnedWhileWarmIsInfo) {
  auto d = RunRule(kFanRule, RepeatedReadings({WithFans({100}, 76)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(FanRule, QuietWithFansWorking) {
  auto d =
      RunRule(kFanRule, RepeatedReadings({WithFans({40, 42}, 65), WithFans({100}, 55, 1)}, 10));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
