#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

KernelEvent Fault(int code, unsigned gpu, const std::string& process, std::int64_t pid) {
  KernelEvent e = XidEvent(code, HealthyGpu(gpu).pci_bus_id, "MMU Fault");
  e.process = process;
  e.pid = pid;
  return e;
}

TEST(XidApplicationRule, OneProgramRepeatingIsAnAppBug) {
  auto d =
      RunRule(kXidApplicationRule, WithEvents({Fault(31, 0, "chrome", 1), Fault(31, 0, "chrome", 2),
                                               Fault(31, 0, "chrome", 3)}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "xid.application");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.xids, std::vector<int>{31});
  EXPECT_NE(f.explanation.en.find("an application bug"), std::string::npos);
  bool named = false;
  for (const auto& e : f.evidence)
    named = named || e.text.en.find("`chrome` (pids 1, 2, 3)") != std::string::npos;
  EXPECT_TRUE(named);
  ExpectBilingual(d);
}

TEST(XidApplicationRule, FewFaultsAreInfo) {
  auto d = RunRule(kXidApplicationRule, WithEvents({Fault(13, 0, "python3", 7)}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(XidApplicationRule, ManyProgramsOnManyGpusMayBeTheDriver) {
  auto d = RunRule(kXidApplicationRule,
                   WithEvents({Fault(13, 0, "train", 1), Fault(13, 1, "serve", 2)}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].gpus.size(), 2u);
  EXPECT_NE(d.findings[0].explanation.en.find("driver"), std::string::npos);
}

TEST(XidApplicationRule, Xid45AfterAnotherXidIsAConsequence) {
  KernelEvent cleanup = Fault(45, 0, "python3", 9);
  cleanup.message = "Ch 00000001 caused by previous Xid 149";
  auto d = RunRule(kXidApplicationRule, WithEvents({cleanup}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].xids, std::vector<int>{45});
  EXPECT_NE(d.findings[0].explanation.en.find("Xid 149"), std::string::npos);
  ExpectBilingual(d);
}

TEST(XidApplicationRule, QuietWithoutApplicationXids) {
  auto d = RunRule(kXidApplicationRule, WithEvents({XidEvent(79, "0000:18:00.0", "lost")}));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
