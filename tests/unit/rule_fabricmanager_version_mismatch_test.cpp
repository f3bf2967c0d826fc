#include <gtest/gtest.h>

#include "parse/fabricmanager_log.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace rule_fabricmanager_version_mismatch_unit_local {

DiagnosisInput NvSwitchHost(const std::optional<std::string>& fm_version) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0)}, 1);
  input.versions = TestVersions();  // driver 535.183.01
  FabricManagerFacts& fm = input.versions->fabric_manager;
  fm.nvswitch_present = true;
  fm.version = fm_version;
  fm.version_source = "nv-fabricmanager --version";
  if (fm_version) fm.version_matches_driver = *fm_version == "535.183.01";
  return input;
}

TEST(FabricManagerVersionMismatchRule, InstalledVersionDifferingFromTheDriverIsCritical) {
  auto d = RunRule(kFabricManagerVersionMismatchRule, NvSwitchHost("535.161.08"));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "fabricmanager.version_mismatch");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  EXPECT_NE(f.title.en.find("535.161.08"), std::string::npos);
  EXPECT_NE(f.actions[0].text.en.find("exactly version 535.183.01"), std::string::npos);
}

TEST(FabricManagerVersionMismatchRule, MismatchLoggedByFabricManagerCountsWhenVersionsAreUnknown) {
  DiagnosisInput input = NvSwitchHost(std::nullopt);
  FmLogSummary log = ScanFabricManagerLog(
      "[Jan 10 2026 10:00:00] [ERROR] [tid 3228] fabric manager NVIDIA GPU driver interface "
      "version 530.30.02 don't match with driver version 530.41.03. Please update with matching "
      "NVIDIA driver package.\n",
      20);
  input.versions->fabric_manager.log = log;
  input.versions->fabric_manager.log_path = "/var/log/fabricmanager.log";
  auto d = RunRule(kFabricManagerVersionMismatchRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("530.30.02"), std::string::npos);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("logged in /var/log/fabricmanager.log"),
            std::string::npos);
}

TEST(FabricManagerVersionMismatchRule, QuietWhenMatchingOrNotNeeded) {
  EXPECT_TRUE(
      RunRule(kFabricManagerVersionMismatchRule, NvSwitchHost("535.183.01")).findings.empty());
  DiagnosisInput no_switch = NvSwitchHost("535.161.08");
  no_switch.versions->fabric_manager.nvswitch_present = false;
  EXPECT_TRUE(RunRule(kFabricManagerVersionMismatchRule, no_switch).findings.empty());
  EXPECT_TRUE(
      RunRule(kFabricManagerVersionMismatchRule, NvSwitchHost(std::nullopt)).findings.empty());
}

}  // namespace rule_fabricmanager_version_mismatch_unit_local
}  // namespace gpudoctor::testing
