#include <gtest/gtest.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(ThermalSlowdownRule, FiresWhenThermalReasonIsActive) {
  GpuStatus hot = HealthyGpu(2);
  hot.temperature_c = 88;
  hot.clock_event_reasons_mask = ClockReasonBit("hw_thermal_slowdown");
  auto d = RunRule(kThermalSlowdownRule, RepeatedReadings({HealthyGpu(0), hot}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "thermal.slowdown");
  EXPECT_EQ(f.severity, Severity::kCritical);  // sustained over the whole window
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0], hot.pci_bus_id);
  EXPECT_FALSE(f.evidence.empty());
  EXPECT_FALSE(f.actions.empty());
  EXPECT_EQ(d.verdict, Severity::kCritical);
}

TEST(ThermalSlowdownRule, BriefSlowdownIsAWarning) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  readings[3][0].clock_event_reasons_mask = ClockReasonBit("sw_thermal_slowdown");
  auto d = RunRule(kThermalSlowdownRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(ThermalSlowdownRule, QuietOnAHealthyGpu) {
  auto d = RunRule(kThermalSlowdownRule, RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 10));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.verdict, Severity::kOk);
}

TEST(ThermalSlowdownRule, NotCheckedWithoutReadings) {
  DiagnosisInput input;
  auto d = RunRule(kThermalSlowdownRule, input);
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "thermal.slowdown");
}

}  // namespace
}  // namespace gpudoctor::testing

namespace gpudoctor::testing {
namespace {

TEST(ThermalSlowdownRule, OneSnapshotIsAWarningNotCritical) {
  GpuStatus hot = HealthyGpu(0);
  hot.clock_event_reasons_mask = ClockReasonBit("sw_thermal_slowdown");
  auto d = RunRule(kThermalSlowdownRule, RepeatedReadings({hot}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

}  // namespace
}  // namespace gpudoctor::testing
