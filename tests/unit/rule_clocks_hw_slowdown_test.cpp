#include <gtest/gtest.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus Slowed(std::uint64_t extra_bits = 0) {
  GpuStatus g = HealthyGpu(0);
  g.clock_event_reasons_mask = ClockReasonBit("hw_slowdown") | extra_bits;
  g.clocks_sm_mhz = 900;
  return g;
}

TEST(HwSlowdownRule, UnexplainedSlowdownIsAWarning) {
  auto d = RunRule(kHwSlowdownRule, RepeatedReadings({Slowed()}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "clocks.hw_slowdown");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].value, 100);
  EXPECT_EQ(f.evidence[1].value, 900);
}

TEST(HwSlowdownRule, OneOccurrenceInALongWindowIsInfo) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  readings[2][0] = Slowed();
  auto d = RunRule(kHwSlowdownRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(HwSlowdownRule, RepeatedOccurrencesAreAWarning) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  readings[2][0] = Slowed();
  readings[7][0] = Slowed();
  auto d = RunRule(kHwSlowdownRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(HwSlowdownRule, QuietWhenThePowerBrakeOrHeatExplainsIt) {
  GpuStatus hot = Slowed();
  hot.index = 1;
  hot.pci_bus_id = HealthyGpu(1).pci_bus_id;
  hot.temperature_c = 90;
  auto d = RunRule(kHwSlowdownRule,
                   RepeatedReadings({Slowed(ClockReasonBit("hw_power_brake_slowdown")), hot}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(HwSlowdownRule, QuietOnAHealthyGpuOrWithoutReasons) {
  GpuStatus unknown = HealthyGpu(1);
  unknown.clock_event_reasons_mask.reset();
  auto d = RunRule(kHwSlowdownRule, RepeatedReadings({HealthyGpu(0), unknown}, 10));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
