#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(EccUncorrectableRule, VolatileUncorrectedIsCritical) {
  GpuStatus g = HealthyGpu(3);
  g.ecc_volatile_uncorrected = 2;
  g.ecc_aggregate_uncorrected = 2;
  auto d = RunRule(kEccUncorrectableRule, RepeatedReadings({HealthyGpu(0), g}, 4));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "ecc.uncorrectable");
  EXPECT_EQ(f.severity, Severity::kCritical);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0], g.pci_bus_id);
  EXPECT_EQ(f.evidence[0].value, 2.0);
  bool has_reset = false;
  for (const auto& a : f.actions) has_reset |= a.command == "sudo nvidia-smi -r -i 3";
  EXPECT_TRUE(has_reset);
}

TEST(EccUncorrectableRule, PastUncorrectedOnlyIsInfo) {
  GpuStatus g = HealthyGpu(0);
  g.ecc_aggregate_uncorrected = 3;
  auto d = RunRule(kEccUncorrectableRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].evidence[0].value, 3.0);
}

TEST(EccUncorrectableRule, CorrectedRisingFastIsAWarning) {
  std::vector<std::vector<GpuStatus>> readings;
  for (int i = 0; i < 10; ++i) {
    GpuStatus g = HealthyGpu(0);
    g.ecc_volatile_corrected = i * 10;
    readings.push_back({g});
  }
  auto d = RunRule(kEccUncorrectableRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].evidence[0].value, 90.0);
}

TEST(EccUncorrectableRule, CorrectedFewOrStaticIsInfo) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  readings[9][0].ecc_volatile_corrected = 1;
  auto d = RunRule(kEccUncorrectableRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);

  GpuStatus single = HealthyGpu(0);
  single.ecc_volatile_corrected = 177;  // one dump: a count since the driver loaded
  d = RunRule(kEccUncorrectableRule, RepeatedReadings({single}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].evidence[0].value, 177.0);
}

TEST(EccUncorrectableRule, RetiredPagesPendingIsAWarning) {
  GpuStatus g = HealthyGpu(2);
  g.retired_pages_sbe = 1;
  g.retired_pages_dbe = 1;
  g.retired_pages_pending = true;
  auto d = RunRule(kEccUncorrectableRule, RepeatedReadings({g}, 3));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].actions[0].command, "sudo nvidia-smi -r -i 2");
}

TEST(EccUncorrectableRule, SixtyRetiredPagesIsCriticalAndFiftyNineIsNot) {
  GpuStatus at = HealthyGpu(0);
  at.retired_pages_sbe = 30;
  at.retired_pages_dbe = 30;
  GpuStatus below = HealthyGpu(1);
  below.retired_pages_sbe = 30;
  below.retired_pages_dbe = 29;
  auto d = RunRule(kEccUncorrectableRule, RepeatedReadings({at, below}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_EQ(d.findings[0].gpus[0], at.pci_bus_id);
  EXPECT_EQ(d.findings[0].evidence[0].value, 60.0);
}

TEST(EccUncorrectableRule, QuietOnHealthyAndOnMissingCounters) {
  GpuStatus no_ecc = HealthyGpu(1);
  no_ecc.ecc_volatile_corrected.reset();
  no_ecc.ecc_volatile_uncorrected.reset();
  no_ecc.ecc_aggregate_corrected.reset();
  no_ecc.ecc_aggregate_uncorrected.reset();
  auto d = RunRule(kEccUncorrectableRule, RepeatedReadings({HealthyGpu(0), no_ecc}, 10));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
