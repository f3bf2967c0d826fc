#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace rule_xid_other_unit_local {

const std::string kBus = "0000:cb:00.0";

TEST(XidOtherRule, DecodesWithTheCatalogPerGpuAndCode) {
  KernelEvent timeout = XidEvent(109, kBus, "Ch 00000008, errorString CTX SWITCH TIMEOUT");
  timeout.process = "pt_main_thread";
  timeout.pid = 1797828;
  auto d = RunRule(kXidOtherRule, WithEvents({timeout, XidEvent(62, kBus, "PMU halted")}));
  ASSERT_EQ(d.findings.size(), 2u);
  for (const Finding& f : d.findings) {
    EXPECT_EQ(f.id, "xid.other");
    EXPECT_EQ(f.severity, Severity::kCritical);  // both RESET_GPU in the catalog
    EXPECT_EQ(f.gpus, std::vector<std::string>{kBus});
    EXPECT_EQ(f.xids.size(), 1u);
  }
  const Finding* ctx = FindingFor(d, "xid.other");
  ASSERT_NE(ctx, nullptr);
  ExpectBilingual(d);
}

TEST(XidOtherRule, UnknownCodeGetsTheSafeDefault) {
  auto d = RunRule(kXidOtherRule, WithEvents({XidEvent(999, kBus, "something new")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].explanation.en.find("not in NVIDIA's published catalog"),
            std::string::npos);
  EXPECT_EQ(d.findings[0].actions.back().command, "sudo nvidia-bug-report.sh");
}

TEST(XidOtherRule, EvidenceStopsAtTenEvents) {
  std::vector<KernelEvent> many;
  for (std::size_t i = 0; i < 14; ++i) {
    many.push_back(XidEvent(8, kBus, "Channel 00000000"));
    many.back().source.line = i + 1;
  }
  auto d = RunRule(kXidOtherRule, WithEvents(many));
  ASSERT_EQ(d.findings.size(), 1u);
  ASSERT_EQ(d.findings[0].evidence.size(), 11u);
  EXPECT_EQ(d.findings[0].evidence.back().value, 4);
}

TEST(XidOtherRule, QuietForXidsOtherRulesOwn) {
  auto d =
      RunRule(kXidOtherRule, WithEvents({XidEvent(79, kBus, "lost"), XidEvent(13, kBus, "x"),
                                         XidEvent(48, kBus, "dbe"), XidEvent(119, kBus, "t")}));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace rule_xid_other_unit_local
}  // namespace gpudoctor::testing
