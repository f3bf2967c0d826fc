// Every Xid is judged by exactly one xid.* rule, and the group's rules all
// run on a kernel log alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "rules/kernel_events/group.h"
#include "rules/engine/registry.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(KernelEventRulesPartition, EachXidHasExactlyOneRule) {
  std::vector<const Rule*> xid_rules;
  for (const Rule* r : KernelEventRules()) {
    if (r->id.substr(0, 4) == "xid.") xid_rules.push_back(r);
  }
  ASSERT_EQ(xid_rules.size(), 7u);
  std::vector<int> codes;
  for (int c = 1; c <= 180; ++c) codes.push_back(c);
  codes.push_back(999);
  for (int code : codes) {
    auto d = Diagnose(WithEvents({XidEvent(code, "0000:18:00.0", "message")}), xid_rules);
    int owners = 0;
    for (const Finding& f : d.findings) {
      owners += std::count(f.xids.begin(), f.xids.end(), code) > 0;
    }
    EXPECT_EQ(owners, 1) << "Xid " << code;
    ExpectBilingual(d);
  }
}

TEST(KernelEventRulesPartition, EveryRuleNeedsOnlyTheKernelLogOrXidEvents) {
  auto rules = KernelEventRules();
  EXPECT_EQ(rules.size(), 27u);  // the 27 rules of src/rules/kernel_events listed in group.h
  for (const Rule* r : rules) {
    // The Xid rules also run on NVML's Xid events alone (a container).
    const bool xid_rule = r->id.rfind("xid.", 0) == 0 && r->id != "xid.recovery_action";
    EXPECT_EQ(r->needs, static_cast<unsigned>(xid_rule ? kNeedsXidEvents : kNeedsKernelLog)) << r->id;
    EXPECT_FALSE(r->description.empty()) << r->id;
    EXPECT_EQ(FindRule(r->id), r) << r->id;
  }
  auto d = Diagnose(WithEvents({}), rules);  // an empty log: nothing to say
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(d.not_checked.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
