#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace rule_xid_recovery_action_unit_local {

const std::string kBus = "0000:01:00.0";

KernelEvent Action154(const std::string& action, std::size_t line) {
  KernelEvent e = XidEvent(154, kBus, "GPU recovery action changed from 0x0 (None) to ...");
  e.detail = action;
  e.source.line = line;
  return e;
}

TEST(XidRecoveryActionRule, ResetRequiredIsCriticalWithTheCommand) {
  KernelEvent derived = Action154("GPU Reset Required", 2);
  derived.kind = KernelEventKind::kRecoveryAction;
  auto d = RunRule(
      kXidRecoveryActionRule,
      WithEvents({XidEvent(120, kBus, "GSP error"), Action154("GPU Reset Required", 2), derived}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "xid.recovery_action");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{kBus});
  EXPECT_EQ(f.xids, std::vector<int>{154});
  EXPECT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.actions.back().command, "sudo nvidia-smi -r -i " + kBus);
  EXPECT_NE(f.explanation.en.find("followed Xid 120"), std::string::npos);
  ExpectBilingual(d);
}

TEST(XidRecoveryActionRule, RebootRequiredSaysReboot) {
  auto d = RunRule(kXidRecoveryActionRule, WithEvents({Action154("Node Reboot Required", 1)}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_EQ(d.findings[0].actions.back().command, "sudo reboot");
}

TEST(XidRecoveryActionRule, BackToNoneIsInfo) {
  auto d = RunRule(kXidRecoveryActionRule,
                   WithEvents({Action154("GPU Reset Required", 1), Action154("None", 2)}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].evidence.size(), 2u);
}

TEST(XidRecoveryActionRule, QuietWithoutXid154) {
  auto d = RunRule(kXidRecoveryActionRule, WithEvents({XidEvent(13, kBus, "exception")}));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace rule_xid_recovery_action_unit_local
}  // namespace gpudoctor::testing
