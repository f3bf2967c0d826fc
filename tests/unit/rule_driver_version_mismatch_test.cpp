#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

// Libraries of 550.90.07 installed while module 535.183.01 is still loaded.
VersionFacts UpgradedWithoutReboot() {
  VersionFacts v = TestVersions();
  v.driver.libraries = {DriverLibraryFile{"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.90.07",
                                          "libnvidia-ml.so", TestDriver("550.90.07"), false}};
  v.driver.nvml_version.reset();  // NVML refused to start
  v.driver.version_mismatch = true;
  v.driver.mismatch_details = {
      "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.90.07 is 550.90.07, kernel module is "
      "535.183.01"};
  return v;
}

TEST(DriverVersionMismatchRule, LibrariesOfAnotherVersionAreCritical) {
  auto d = RunRule(kDriverVersionMismatchRule, VersionsInput(UpgradedWithoutReboot()));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "driver.version_mismatch");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_TRUE(f.gpus.empty());
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_NE(f.evidence[0].text.en.find("535.183.01"), std::string::npos);
  EXPECT_NE(f.evidence[1].text.en.find("550.90.07"), std::string::npos);
  EXPECT_EQ(f.actions[1].command, "sudo reboot");
}

TEST(DriverVersionMismatchRule, NvmlDisagreeingWithTheModuleIsCritical) {
  VersionFacts v = TestVersions();
  v.driver.nvml_version = TestDriver("550.90.07");
  v.driver.version_mismatch = true;
  v.driver.mismatch_details = {"NVML reports 550.90.07, kernel module is 535.183.01"};
  auto d = RunRule(kDriverVersionMismatchRule, VersionsInput(v));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
}

TEST(DriverVersionMismatchRule, LeftoverFilesNextToMatchingOnesAreInfo) {
  VersionFacts v = TestVersions();
  v.driver.libraries.push_back(
      DriverLibraryFile{"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.525.60.13", "libnvidia-ml.so",
                        TestDriver("525.60.13"), false});
  v.driver.version_mismatch = true;
  v.driver.mismatch_details = {
      "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.525.60.13 is 525.60.13, kernel module is "
      "535.183.01"};
  auto d = RunRule(kDriverVersionMismatchRule, VersionsInput(v));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(DriverVersionMismatchRule, QuietWhenEverythingAgrees) {
  auto d = RunRule(kDriverVersionMismatchRule, VersionsInput(TestVersions()));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(d.not_checked.empty());
}

TEST(DriverVersionMismatchRule, NotCheckedWithoutVersions) {
  auto d = RunRule(kDriverVersionMismatchRule, RepeatedReadings({HealthyGpu(0)}, 1));
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "driver.version_mismatch");
}

}  // namespace
}  // namespace gpudoctor::testing
