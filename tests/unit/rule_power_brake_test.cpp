#include <gtest/gtest.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus Braking(unsigned index) {
  GpuStatus g = HealthyGpu(index);
  g.clock_event_reasons_mask = ClockReasonBit("hw_power_brake_slowdown");
  g.power_draw_w = 690;
  return g;
}

TEST(PowerBrakeRule, SustainedBrakeIsCritical) {
  auto d = RunRule(kPowerBrakeRule, RepeatedReadings({HealthyGpu(0), Braking(1)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "power.brake");
  EXPECT_EQ(f.severity, Severity::kCritical);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0], Braking(1).pci_bus_id);
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].value, 100);
  EXPECT_EQ(f.evidence[1].value, 690);
  EXPECT_EQ(f.evidence[1].unit, "watts");
  EXPECT_FALSE(f.actions.empty());
}

TEST(PowerBrakeRule, OneReadingWithTheBrakeIsAWarning) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  readings[6][0] = Braking(0);
  auto d = RunRule(kPowerBrakeRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].evidence[0].value, 10);
}

TEST(PowerBrakeRule, SeveralGpusBrakingPointToTheSharedSupply) {
  auto d = RunRule(kPowerBrakeRule, RepeatedReadings({Braking(0), Braking(1), Braking(2)}, 4));
  ASSERT_EQ(d.findings.size(), 3u);
  const auto& evidence = d.findings[0].evidence;
  EXPECT_EQ(evidence.back().value, 3);
  EXPECT_EQ(evidence.back().unit, "count");
}

TEST(PowerBrakeRule, QuietOnHealthyOrUnknownReasons) {
  GpuStatus unknown = HealthyGpu(1);
  unknown.clock_event_reasons_mask.reset();
  auto d = RunRule(kPowerBrakeRule, RepeatedReadings({HealthyGpu(0), unknown}, 10));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.verdict, Severity::kOk);
}

TEST(PowerBrakeRule, OneSnapshotIsAWarningNotCritical) {
  auto d = RunRule(kPowerBrakeRule, RepeatedReadings({Braking(0)}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

}  // namespace
}  // namespace gpudoctor::testing
