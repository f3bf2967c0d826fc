// kernel_log.undecoded: a log whose NVRM/Xid lines could not be read says so.
#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "support/rule_testing.h"

namespace gpudoctor {
namespace {

using testing::FindingFor;
using testing::RunRule;

DiagnosisInput WithUndecoded(std::vector<UndecodedLog> logs) {
  DiagnosisInput input;
  input.live = false;
  input.kernel = KernelFacts{};
  input.kernel->sources.push_back(SourceStatus{"odd.log", true, {}});
  input.kernel->undecoded = std::move(logs);
  return input;
}

TEST(RuleKernelLogUndecoded, FiresWithTheCountAndTheFirstLine) {
  auto d = RunRule(kKernelLogUndecodedRule,
                   WithUndecoded({UndecodedLog{"odd.log", 3, 7, "NVRM: Xid (PCI:0000:3b:00) 79"}}));
  const Finding* f = FindingFor(d, "kernel_log.undecoded");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);  // it names an Xid
  EXPECT_NE(f->title.en.find("3 line(s)"), std::string::npos) << f->title.en;
  ASSERT_EQ(f->evidence.size(), 1u);
  EXPECT_NE(f->evidence[0].text.en.find("NVRM: Xid (PCI:0000:3b:00) 79"), std::string::npos);
  ASSERT_TRUE(f->evidence[0].source.has_value());
  EXPECT_EQ(f->evidence[0].source->line, 7u);
}

TEST(RuleKernelLogUndecoded, InfoWhenNoXidIsNamed) {
  auto d = RunRule(kKernelLogUndecodedRule,
                   WithUndecoded({UndecodedLog{"odd.log", 1, 1, "NVRM: something new"}}));
  const Finding* f = FindingFor(d, "kernel_log.undecoded");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
}

TEST(RuleKernelLogUndecoded, QuietWhenEveryLogWasRead) {
  auto d = RunRule(kKernelLogUndecodedRule, WithUndecoded({}));
  EXPECT_EQ(FindingFor(d, "kernel_log.undecoded"), nullptr);
}

}  // namespace
}  // namespace gpudoctor
