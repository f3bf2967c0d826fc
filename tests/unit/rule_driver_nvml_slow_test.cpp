#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace rule_driver_nvml_slow_test_ns {

// GPU 1's readings with these median call times (ms); GPU 0 answers fast.
DiagnosisInput NvmlCallTimes(std::initializer_list<double> ms) {
  std::vector<std::vector<GpuStatus>> readings;
  for (double m : ms) {
    GpuStatus fast = HealthyGpu(0);
    fast.nvml_call_latency_ms = 0.2;
    GpuStatus g = HealthyGpu(1);
    g.nvml_call_latency_ms = m;
    readings.push_back({fast, g});
  }
  return InputFromReadings(readings);
}

TEST(DriverNvmlSlowRule, SlowCallsAreAWarningWithTheMeasuredLatency) {
  auto d = RunRule(kDriverNvmlSlowRule, NvmlCallTimes({110, 108, 112}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "driver.nvml_slow");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(1).pci_bus_id});
  EXPECT_EQ(f.title.en,
            "NVML answers in 110 ms per call on " + GpuLabel(HealthyGpu(1)) +
                ": the driver or its GSP firmware is struggling");
  EXPECT_EQ(f.evidence[0].value, 110.0);
  EXPECT_EQ(f.evidence[0].unit, "ms");
}

TEST(DriverNvmlSlowRule, HalfASecondPerCallIsCritical) {
  auto d = RunRule(kDriverNvmlSlowRule, NvmlCallTimes({900}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
}

TEST(DriverNvmlSlowRule, OneSlowReadingInAFastWindowIsQuiet) {
  EXPECT_TRUE(RunRule(kDriverNvmlSlowRule, NvmlCallTimes({0.3, 400, 0.2, 0.4, 0.3})).findings.empty());
}

TEST(DriverNvmlSlowRule, QuietOnFastDriversAndReadingsWithoutLatency) {
  EXPECT_TRUE(RunRule(kDriverNvmlSlowRule, NvmlCallTimes({0.2, 0.5, 1.5, 20})).findings.empty());
  // Readings from files carry no call times.
  EXPECT_TRUE(
      RunRule(kDriverNvmlSlowRule, RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 5)).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
