#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(EccRowRemapRule, PendingRemapIsAWarningWithReset) {
  GpuStatus g = HealthyGpu(4);
  g.remapped_rows_pending = true;
  g.remapped_rows_uncorrected = 1;
  auto d = RunRule(kEccRowRemapRule, RepeatedReadings({HealthyGpu(0), g}, 5));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "ecc.row_remap");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{g.pci_bus_id});
  EXPECT_EQ(f.evidence[0].value, 1.0);
  EXPECT_EQ(f.actions[0].command, "sudo nvidia-smi -r -i 4");
}

TEST(EccRowRemapRule, RemapFailureIsCritical) {
  GpuStatus g = HealthyGpu(0);
  g.remapped_rows_failure = true;
  auto d = RunRule(kEccRowRemapRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].actions[0].text.en.find("RMA"), std::string::npos);
}

TEST(EccRowRemapRule, RowsRemappedInThePastAreInfo) {
  GpuStatus g = HealthyGpu(0);
  g.remapped_rows_uncorrected = 2;
  auto d = RunRule(kEccRowRemapRule, RepeatedReadings({g}, 2));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(EccRowRemapRule, QuietOnHealthyAndOnUnsupported) {
  GpuStatus old = HealthyGpu(1);  // pre-Ampere: no row remapper
  old.remapped_rows_corrected.reset();
  old.remapped_rows_uncorrected.reset();
  old.remapped_rows_pending.reset();
  old.remapped_rows_failure.reset();
  auto d = RunRule(kEccRowRemapRule, RepeatedReadings({HealthyGpu(0), old}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(EccRowRemapRule, PendingRemapInARealCapture) {
  auto input = InputFromTextFixture("ecc-howto-doc-nvidia-smi-q-d-ECC-ROW_REMAPPER-550.90.07-pending.txt");
  if (!input) GTEST_SKIP() << "shared fixtures missing";
  auto d = RunRule(kEccRowRemapRule, *input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].evidence[0].value, 1.0);  // Remapped Rows Uncorrectable 1
}

}  // namespace
}  // namespace gpudoctor::testing
