#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(PcieLinkDegradedRule, SteadyHalfWidthIsInfoTheSlotMayBeNarrow) {
  GpuStatus narrow = HealthyGpu(1);
  narrow.pcie_link_width_current = 8;
  narrow.utilization_gpu_percent = 0;
  auto d = RunRule(kPcieLinkDegradedRule, RepeatedReadings({HealthyGpu(0), narrow}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "pcie.link_degraded");
  // NVML's maximum is the GPU's, not the slot's: many clouds wire x8.
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.explanation.en.find("slot may simply provide fewer lanes"), std::string::npos);
  EXPECT_EQ(f.gpus, std::vector<std::string>{narrow.pci_bus_id});
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(*f.evidence[0].value, 8.0);
  EXPECT_EQ(f.evidence[0].unit, "lanes");
  EXPECT_NE(f.actions[0].command.find("lspci -vv -s 0000:19:00.0"), std::string::npos);
}

TEST(PcieLinkDegradedRule, WidthThatFallsDuringTheWindowIsAWarning) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  for (std::size_t i = 1; i < readings.size(); ++i) readings[i][0].pcie_link_width_current = 8;
  auto d = RunRule(kPcieLinkDegradedRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(PcieLinkDegradedRule, QuarterWidthOrLessIsAWarning) {
  GpuStatus narrow = HealthyGpu(0);
  narrow.pcie_link_width_current = 4;
  auto d = RunRule(kPcieLinkDegradedRule, RepeatedReadings({narrow}, 3));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(PcieLinkDegradedRule, LowGenerationUnderLoadIsAWarning) {
  GpuStatus slow = HealthyGpu(0);
  slow.pcie_link_gen_current = 1;  // busy at 75 % but at Gen1 of Gen5
  auto d = RunRule(kPcieLinkDegradedRule, RepeatedReadings({slow}, 5));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(*d.findings[0].evidence[0].value, 1.0);
  EXPECT_EQ(d.findings[0].evidence[0].unit, "generation");
}

TEST(PcieLinkDegradedRule, LowGenerationAtIdleIsPowerSavingNotAFault) {
  GpuStatus idle = HealthyGpu(0);
  idle.utilization_gpu_percent = 0;
  idle.pcie_link_gen_current = 1;
  auto d = RunRule(kPcieLinkDegradedRule, RepeatedReadings({idle}, 5));
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);  // it could not be judged, and says so
  EXPECT_NE(d.not_checked[0].reason.en.find("idle"), std::string::npos);
}

TEST(PcieLinkDegradedRule, AMomentaryDipIsNotSustained) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  readings[4][0].pcie_link_gen_current = 3;
  EXPECT_TRUE(RunRule(kPcieLinkDegradedRule, InputFromReadings(readings)).findings.empty());
}

TEST(PcieLinkDegradedRule, SysfsCatchesANarrowLinkNvmlDoesNotShow) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0)}, 1);
  input.pci = TestPci({TestPciGpu(0), TestPciGpu(1, 4, 16)});
  auto d = RunRule(kPcieLinkDegradedRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].gpus, std::vector<std::string>{"0000:19:00.0"});
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("x4 of x16 (sysfs)"), std::string::npos);

  PciDevice gone = TestPciGpu(1, 4, 16);
  gone.answers = false;  // rev ff: gpu.dropped's finding, its link values mean nothing
  input.pci = TestPci({TestPciGpu(0), gone});
  EXPECT_TRUE(RunRule(kPcieLinkDegradedRule, input).findings.empty());
}

TEST(PcieLinkDegradedRule, QuietOnHealthyLinksAndMissingFields) {
  EXPECT_TRUE(
      RunRule(kPcieLinkDegradedRule, RepeatedReadings({HealthyGpu(0)}, 3)).findings.empty());
  GpuStatus unknown = HealthyGpu(0);
  unknown.pcie_link_width_current.reset();
  unknown.pcie_link_gen_max.reset();
  auto d = RunRule(kPcieLinkDegradedRule, RepeatedReadings({unknown}, 1));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(d.not_checked.empty());
}

TEST(PcieLinkDegradedRule, NotCheckedWithNeitherReadingsNorPciList) {
  auto d = RunRule(kPcieLinkDegradedRule, DiagnosisInput{});
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "pcie.link_degraded");
}

}  // namespace
}  // namespace gpudoctor::testing
