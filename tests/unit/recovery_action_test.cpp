// The recovery actions: the closed set and its mappings, the policy (rule
// rows, Xid catalog), and the driver's request as nvidia-smi prints it in
// real captures.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/recovery_action.h"
#include "knowledge/recovery_policy.h"
#include "parse/nvsmi_text.h"
#include "parse/nvsmi_xml.h"
#include "rules/engine/registry.h"
#include "support/fixtures.h"

namespace gpudoctor::testing {
namespace {

TEST(RecoveryAction, NamesRoundTripAndOrderIsStrictness) {
  for (RecoveryAction a : kAllRecoveryActions) {
    EXPECT_EQ(ParseRecoveryAction(RecoveryActionName(a)), a);
    EXPECT_FALSE(RecoveryActionPhrase(a).en.empty());
    EXPECT_NE(RecoveryActionPhrase(a).zh, RecoveryActionPhrase(a).en);
  }
  EXPECT_FALSE(ParseRecoveryAction("reboot"));
  EXPECT_EQ(Stricter(RecoveryAction::kResetGpu, RecoveryAction::kRebootNode),
            RecoveryAction::kRebootNode);
  EXPECT_EQ(Stricter(RecoveryAction::kHardwareInspection, RecoveryAction::kRestartApplication),
            RecoveryAction::kHardwareInspection);
  EXPECT_EQ(RecoveryActionCode(RecoveryAction::kRebootNode), 4);
}

TEST(RecoveryAction, MapsToGpudAndNvsentinel) {
  EXPECT_EQ(GpudRepairAction(RecoveryAction::kNone), "IGNORE_NO_ACTION_REQUIRED");
  EXPECT_EQ(GpudRepairAction(RecoveryAction::kRestartApplication), "CHECK_USER_APP_AND_GPU");
  EXPECT_EQ(GpudRepairAction(RecoveryAction::kRebootNode), "REBOOT_SYSTEM");
  EXPECT_EQ(GpudRepairAction(RecoveryAction::kHardwareInspection), "HARDWARE_INSPECTION");
  EXPECT_EQ(NvsentinelActionFor(RecoveryAction::kResetGpu, false).number, 2);  // COMPONENT_RESET
  EXPECT_EQ(NvsentinelActionFor(RecoveryAction::kRebootNode, false).name, "RESTART_BM");
  EXPECT_EQ(NvsentinelActionFor(RecoveryAction::kRebootNode, true).number, 15);  // RESTART_VM
  EXPECT_EQ(NvsentinelActionFor(RecoveryAction::kHardwareInspection, false).number,
            5);  // CONTACT_SUPPORT
  EXPECT_EQ(NvsentinelActionFor(RecoveryAction::kContactProvider, true).name, "REPLACE_VM");
}

TEST(RecoveryAction, NvmlValuesAndNvidiaSmiWords) {
  EXPECT_EQ(FromNvmlRecoveryAction(0), RecoveryAction::kNone);
  EXPECT_EQ(FromNvmlRecoveryAction(1), RecoveryAction::kResetGpu);
  EXPECT_EQ(FromNvmlRecoveryAction(2), RecoveryAction::kRebootNode);
  EXPECT_EQ(FromNvmlRecoveryAction(3), RecoveryAction::kDrainAndReset);
  EXPECT_EQ(FromNvmlRecoveryAction(4), RecoveryAction::kDrainAndReset);
  EXPECT_FALSE(FromNvmlRecoveryAction(9));
  EXPECT_EQ(NvmlRecoveryActionName(9), "unknown (9)");
  // The words of Xid 154 lines and nvidia-smi.
  EXPECT_EQ(ParseNvmlRecoveryActionText("None"), 0);
  EXPECT_EQ(ParseNvmlRecoveryActionText("GPU Reset Required"), 1);
  EXPECT_EQ(ParseNvmlRecoveryActionText("Node Reboot Required"), 2);
  EXPECT_EQ(ParseNvmlRecoveryActionText("Drain P2P"), 3);
  EXPECT_EQ(ParseNvmlRecoveryActionText("Drain and Reset"), 4);
  EXPECT_EQ(ParseNvmlRecoveryActionText("Recover IMEX Domain"), 5);
  EXPECT_FALSE(ParseNvmlRecoveryActionText("N/A"));
  EXPECT_FALSE(ParseNvmlRecoveryActionText(""));
}

TEST(RecoveryPolicy, EveryRowNamesARuleAndXidsFollowTheCatalog) {
  for (const RuleRecoveryRow& row : RuleRecoveryTable()) {
    EXPECT_NE(FindRule(row.rule), nullptr) << row.rule;
    EXPECT_LE(static_cast<int>(row.at_warning), static_cast<int>(row.at_critical)) << row.rule;
  }
  EXPECT_EQ(XidRecovery(79), RecoveryAction::kRebootNode);          // RESTART_BM
  EXPECT_EQ(XidRecovery(48), RecoveryAction::kResetGpu);            // WORKFLOW_XID_48
  EXPECT_EQ(XidRecovery(13), RecoveryAction::kRestartApplication);  // RESTART_APP
  EXPECT_EQ(XidRecovery(94), RecoveryAction::kRestartApplication);  // contained: never more
  EXPECT_EQ(XidRecovery(43), RecoveryAction::kNone);                // IGNORE
  EXPECT_EQ(XidRecovery(54), RecoveryAction::kHardwareInspection);  // CHECK_MECHANICALS
  EXPECT_EQ(RuleRecovery("gpu.lost", Severity::kCritical), RecoveryAction::kRebootNode);
  EXPECT_EQ(RuleRecovery("gpu.lost", Severity::kInfo), RecoveryAction::kNone);
  EXPECT_EQ(RuleRecovery("pcie.replay", Severity::kWarning), RecoveryAction::kNone);
  EXPECT_EQ(RuleRecovery("pcie.replay", Severity::kCritical), RecoveryAction::kHardwareInspection);
  EXPECT_EQ(RuleRecovery("host.disk_space", Severity::kCritical), RecoveryAction::kNone);
}

TEST(RecoveryNvsmi, RealCapturesReadTheDriversAction) {
  const std::string xml = test::ReadFixtureFile("xml", "telegraf-rtx3060-570.124.04-v12.xml");
  const std::string text =
      test::ReadFixtureFile("text", "gpuexporter-h100-80gb-hbm3-590.48.01-load-q.txt");
  const std::string old_xml = test::ReadFixtureFile("xml", "netdata-rtx4090-535.86.05-v12.xml");
  if (xml.empty() || text.empty() || old_xml.empty()) GTEST_SKIP() << "shared fixtures missing";
  auto from_xml = ParseNvidiaSmiXml(xml, "rtx3060.xml");
  ASSERT_TRUE(from_xml.ok());
  EXPECT_EQ(from_xml->gpus.at(0).recovery_action, 0);  // <gpu_recovery_action>None
  auto from_text = ParseNvidiaSmiText(text, "h100-q.txt");
  ASSERT_TRUE(from_text.ok());
  EXPECT_EQ(from_text->gpus.at(0).recovery_action, 0);  // GPU Recovery Action : None
  auto before_570 = ParseNvidiaSmiXml(old_xml, "rtx4090.xml");
  ASSERT_TRUE(before_570.ok());
  EXPECT_FALSE(before_570->gpus.at(0).recovery_action);  // the driver has no such field
}

TEST(RecoveryNvsmi, ANonNoneActionInTheXmlIsRead) {
  const std::string xml = test::ReadFixtureFile("xml", "telegraf-rtx3060-570.124.04-v12.xml");
  if (xml.empty()) GTEST_SKIP() << "shared fixtures missing";
  std::string edited = xml;
  const std::string from = "<gpu_recovery_action>None</gpu_recovery_action>";
  const auto at = edited.find(from);
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, from.size(),
                 "<gpu_recovery_action>Node Reboot Required</gpu_recovery_action>");
  auto doc = ParseNvidiaSmiXml(edited, "edited.xml");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->gpus.at(0).recovery_action, 2);
}

}  // namespace
}  // namespace gpudoctor::testing

namespace gpudoctor::testing {
namespace {

// docs/reference.md's table of rule actions is the policy's, row for row.
TEST(RecoveryPolicy, TheReferenceListsEveryRowOfThePolicy) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/../../docs/reference.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto start = doc.find("Rules whose findings need more than their own steps:");
  ASSERT_NE(start, std::string::npos);
  const std::string section = doc.substr(start, doc.find("###", start) - start);
  std::size_t rows = 0;
  for (const RuleRecoveryRow& row : RuleRecoveryTable()) {
    const std::string line = "| `" + std::string(row.rule) + "` | " +
                             std::string(RecoveryActionName(row.at_warning)) + " | " +
                             std::string(RecoveryActionName(row.at_critical)) + " |";
    EXPECT_NE(section.find(line), std::string::npos) << line;
    ++rows;
  }
  std::size_t listed = 0;
  for (std::size_t at = section.find("\n| `"); at != std::string::npos;
       at = section.find("\n| `", at + 1))
    ++listed;
  EXPECT_EQ(listed, rows) << "the reference lists rows the policy does not have";
}

}  // namespace
}  // namespace gpudoctor::testing
