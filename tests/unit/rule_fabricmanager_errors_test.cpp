#include <gtest/gtest.h>

#include "parse/fabricmanager_log.h"
#include "rules/system/group.h"
#include "support/fixtures.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

DiagnosisInput WithLog(const std::string& text) {
  DiagnosisInput input;
  input.versions = TestVersions();
  FabricManagerFacts& fm = input.versions->fabric_manager;
  fm.nvswitch_present = true;
  fm.log_path = "/var/log/fabricmanager.log";
  fm.log = ScanFabricManagerLog(text, 20);
  return input;
}

TEST(FabricManagerErrorsRule, NonFatalNvSwitchErrorFromTheGpudLogIsAWarning) {
  std::string text = test::ReadFixtureFile(
      "kernel", "gpud-testdata-fabricmanager-log-nvswitch-nonfatal-12028.log");
  if (text.empty()) GTEST_SKIP() << "shared fixtures not present";
  auto d = RunRule(kFabricManagerErrorsRule, WithLog(text));  // no window: judged as recent
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "fabricmanager.errors");
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.evidence.size(), 1u);
  ASSERT_TRUE(f.evidence[0].source.has_value());
  EXPECT_EQ(f.evidence[0].source->file, "/var/log/fabricmanager.log");
  EXPECT_EQ(f.evidence[0].source->line, 100u);
  EXPECT_NE(f.evidence[0].text.en.find("non-fatal error 12028"), std::string::npos);
  EXPECT_TRUE(f.evidence[0].time.has_value());
}

TEST(FabricManagerErrorsRule, FatalErrorIsCriticalAndOldErrorsAreInfo) {
  const std::string fatal =
      "[Dec 31 2025 23:00:00] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 on "
      "NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 33\n";
  DiagnosisInput recent = WithLog(fatal);
  recent.window_to = TestTime(0);  // 2026-01-01: an hour or so later
  auto d = RunRule(kFabricManagerErrorsRule, recent);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_EQ(d.findings[0].actions[0].command, "sudo reboot");

  DiagnosisInput later = WithLog(fatal);
  later.window_to = TestTime(30 * 24 * 3600);  // a month later
  auto old = RunRule(kFabricManagerErrorsRule, later);
  ASSERT_EQ(old.findings.size(), 1u);
  EXPECT_EQ(old.findings[0].severity, Severity::kInfo);
  EXPECT_NE(old.findings[0].title.en.find("past"), std::string::npos);
}

TEST(FabricManagerErrorsRule, QuietOnInfoOnlyLogsHarmlessErrorsAndWithoutNvSwitch) {
  EXPECT_TRUE(RunRule(kFabricManagerErrorsRule,
                      WithLog("[Feb 25 2025 13:59:45] [INFO] [tid 1803] successfully setup "
                              "multicast team\n"))
                  .findings.empty());
  EXPECT_TRUE(RunRule(kFabricManagerErrorsRule,
                      WithLog("[Nov 15 2023 10:00:00] [ERROR] [tid 9] request to query NVSwitch "
                              "device information from NVSwitch driver failed with "
                              "error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]\n"))
                  .findings.empty());
  DiagnosisInput no_switch = WithLog("[Feb 25 2025 13:59:45] [ERROR] [tid 1] something failed\n");
  no_switch.versions->fabric_manager.nvswitch_present = false;
  EXPECT_TRUE(RunRule(kFabricManagerErrorsRule, no_switch).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
