// The one Xid severity policy (knowledge/xid_severity.h), checked from the
// catalog's data for every code it holds: one occurrence of each Xid, run
// through every xid.* rule, gives the verdict the catalog row implies.
#include "knowledge/xid_severity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

const Rule* const kXidRules[] = {&kXidFallenOffBusRule, &kXidGspRule,    &kXidMemoryRule,
                                 &kXidApplicationRule,  &kXidRecoveryActionRule,
                                 &kXidNvlinkRule,       &kXidOtherRule};

// The most severe finding any xid.* rule gives for `events`; nullopt when none fires.
std::optional<Severity> PolicyVerdictOf(const std::vector<KernelEvent>& events) {
  std::optional<Severity> worst;
  for (const Rule* rule : kXidRules) {
    for (const Finding& f : RunRule(*rule, WithEvents(events)).findings) {
      worst = worst ? std::max(*worst, f.severity) : f.severity;
    }
  }
  return worst;
}

// What the catalog's row says one occurrence must give.
bool CatalogSaysCritical(const XidInfo& info) {
  auto fatal = DcgmFatalXids();
  if (std::find(fatal.begin(), fatal.end(), info.code) != fatal.end()) return true;
  return info.in_catalog && ResolvesWithResetOrWorse(info.immediate);
}

TEST(XidSeverityPolicy, EveryCatalogCodeOnceGivesTheVerdictItsRowImplies) {
  std::size_t critical = 0, checked = 0;
  for (const XidInfo& info : AllXids()) {
    if (info.code == 154) continue;  // by its recovery action, below
    // A plain NVRM message ("Nonfatal" would lower an NVLink Xid, "Fatal" raise it).
    KernelEvent e = XidEvent(info.code, "0000:3b:00.0", "Ch 00000010", TestTime(0));
    auto verdict = PolicyVerdictOf({e});
    ASSERT_TRUE(verdict) << "Xid " << info.code << " gave no finding";
    ++checked;
    if (IsApplicationXid(info.code)) {
      EXPECT_NE(*verdict, Severity::kCritical) << "application Xid " << info.code;
    } else if (CatalogSaysCritical(info)) {
      ++critical;
      EXPECT_EQ(*verdict, Severity::kCritical)
          << "Xid " << info.code << " (" << XidResolutionName(info.immediate) << ")";
    }
  }
  EXPECT_GT(checked, 100u);
  EXPECT_GT(critical, 10u);  // the policy is not vacuous
  for (int code : DcgmFatalXids()) {
    EXPECT_EQ(XidOccurrenceFloor(code), XidSeverity::kCritical) << code;
  }
}

TEST(XidSeverityPolicy, NvlinkResetXidIsCriticalEvenWhenItsTextSaysNonfatal) {
  // Xid 155's row: RESET_GPU. The policy outranks the rule's reading of the text.
  auto verdict = PolicyVerdictOf({XidEvent(155, "0000:3b:00.0", "Nonfatal error", TestTime(0))});
  ASSERT_TRUE(verdict);
  EXPECT_EQ(*verdict, Severity::kCritical);
}

TEST(XidSeverityPolicy, Xid154FollowsItsRecoveryAction) {
  struct Case {
    const char* action;
    Severity expected;
  };
  for (const Case& c : {Case{"None", Severity::kInfo}, Case{"GPU Reset Required", Severity::kCritical},
                        Case{"Node Reboot Required", Severity::kCritical},
                        Case{"Drain and Reset", Severity::kCritical},
                        Case{"Drain P2P", Severity::kWarning}}) {
    KernelEvent e = XidEvent(154, "0000:3b:00.0", "GPU recovery action changed", TestTime(0));
    e.detail = c.action;
    KernelEvent derived = e;
    derived.kind = KernelEventKind::kRecoveryAction;
    auto verdict = PolicyVerdictOf({e, derived});
    ASSERT_TRUE(verdict) << c.action;
    EXPECT_EQ(*verdict, c.expected) << c.action;
  }
}

TEST(XidSeverityPolicy, ApplicationXidsKeepInfoOrWarning) {
  for (int code : {13, 31, 43, 45}) {
    EXPECT_TRUE(IsApplicationXid(code));
    EXPECT_EQ(XidOccurrenceFloor(code), XidSeverity::kInfo) << code;
    auto verdict = PolicyVerdictOf({XidEvent(code, "0000:3b:00.0", "pid=1, name=python", TestTime(0))});
    ASSERT_TRUE(verdict) << code;
    EXPECT_NE(*verdict, Severity::kCritical) << code;
  }
}

}  // namespace
}  // namespace gpudoctor::testing
