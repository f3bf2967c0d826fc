// nvswitch.sxid, host.oom_kill, pcie.aer and pcie.bandwidth_limited.
#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

KernelEvent Sxid(const std::string& detail, int code = 20034) {
  KernelEvent e = MakeEvent(KernelEventKind::kSxid, code, "0000:06:00.0",
                            "SXid: " + std::to_string(code) + ", Link 48");
  e.detail = detail;
  return e;
}

TEST(NvswitchSxidRule, FatalIsCriticalNonFatalAWarning) {
  auto d = RunRule(kNvswitchSxidRule, WithEvents({Sxid("fatal")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "nvswitch.sxid");
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_TRUE(d.findings[0].gpus.empty());  // a switch, not a GPU
  ExpectBilingual(d);
  // 20001 (TX replay) is non-fatal in NVIDIA's guide; 20034 is fatal whatever
  // the line says (sxid_catalog.h).
  auto n = RunRule(kNvswitchSxidRule, WithEvents({Sxid("non-fatal", 20001)}));
  ASSERT_EQ(n.findings.size(), 1u);
  EXPECT_EQ(n.findings[0].severity, Severity::kWarning);
  EXPECT_TRUE(RunRule(kNvswitchSxidRule, WithEvents({})).findings.empty());
}

TEST(HostOomKillRule, NamesTheKilledProcess) {
  KernelEvent oom = MakeEvent(KernelEventKind::kOomKill, std::nullopt, "", "invoked oom-killer");
  oom.process = "python3";
  oom.pid = 4242;
  oom.detail = "killed (cgroup limit)";
  auto d = RunRule(kHostOomKillRule, WithEvents({oom}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "host.oom_kill");
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].title.en.find("`python3` (pid 4242)"), std::string::npos);
  EXPECT_NE(d.findings[0].explanation.en.find("cgroup"), std::string::npos);
  ExpectBilingual(d);
  EXPECT_TRUE(RunRule(kHostOomKillRule, WithEvents({})).findings.empty());
}

KernelEvent Aer(const std::string& detail, std::size_t count) {
  KernelEvent e = MakeEvent(KernelEventKind::kPcieAer, std::nullopt, "0000:18:00.0", "AER: error");
  e.detail = detail;
  e.count = count;
  return e;
}

TEST(PcieAerRule, SeverityFollowsTheErrorKind) {
  auto few = RunRule(kPcieAerRule, WithEvents({Aer("corrected", 2)}));
  ASSERT_EQ(few.findings.size(), 1u);
  EXPECT_EQ(few.findings[0].id, "pcie.aer");
  EXPECT_EQ(few.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(RunRule(kPcieAerRule, WithEvents({Aer("corrected", 50)})).findings[0].severity,
            Severity::kWarning);
  EXPECT_EQ(RunRule(kPcieAerRule, WithEvents({Aer("uncorrected fatal", 1)})).findings[0].severity,
            Severity::kCritical);
  ExpectBilingual(few);
  EXPECT_TRUE(RunRule(kPcieAerRule, WithEvents({})).findings.empty());
}

TEST(PcieAerRule, LinkLossWordsAreCriticalAndAResetAWarning) {
  for (const char* detail :
       {"uncorrected fatal, surprise down", "can't recover", "recovery failed", ", surprise down"}) {
    auto d = RunRule(kPcieAerRule, WithEvents({Aer(detail, 1)}));
    ASSERT_EQ(d.findings.size(), 1u) << detail;
    EXPECT_EQ(d.findings[0].severity, Severity::kCritical) << detail;
  }
  for (const char* detail : {"link reset", "uncorrected non-fatal"}) {
    auto d = RunRule(kPcieAerRule, WithEvents({Aer(detail, 1)}));
    ASSERT_EQ(d.findings.size(), 1u) << detail;
    EXPECT_EQ(d.findings[0].severity, Severity::kWarning) << detail;
  }
}

TEST(PcieAerRule, QuietWhenTheGpuThenFellOffTheBus) {
  // xid.fallen_off_bus tells that story; a corrected error alone stays this rule's.
  KernelEvent fatal = Aer("uncorrected fatal", 1);
  fatal.time = TestTime(1);
  KernelEvent lost = MakeEvent(KernelEventKind::kFallenOffBus, 79, "0000:18:00.0",
                               "GPU has fallen off the bus.", TestTime(3));
  EXPECT_TRUE(RunRule(kPcieAerRule, WithEvents({fatal, lost})).findings.empty());
  KernelEvent corrected = Aer("corrected", 1);
  corrected.time = TestTime(1);
  EXPECT_EQ(RunRule(kPcieAerRule, WithEvents({corrected, lost})).findings.size(), 1u);
  // A loss long after is another story.
  lost.time = TestTime(5000);
  EXPECT_EQ(RunRule(kPcieAerRule, WithEvents({fatal, lost})).findings.size(), 1u);
}

KernelEvent Limited(const std::string& bus) {
  KernelEvent e = MakeEvent(KernelEventKind::kPcieBandwidthLimited, std::nullopt, bus,
                            "252.048 Gb/s available PCIe bandwidth, limited by ...");
  e.detail = "16.0 GT/s PCIe x16 link at 0000:01:00.0 (capable of 504.112 Gb/s)";
  return e;
}

TEST(PcieBandwidthLimitedRule, WarnsForAGpuAndSkipsOtherDevices) {
  auto input = WithEvents({Limited("0000:18:00.0"), Limited("0000:c1:00.0")},
                          RepeatedReadings({HealthyGpu(0)}, 2));
  auto d = RunRule(kPcieBandwidthLimitedRule, input);
  ASSERT_EQ(d.findings.size(), 1u);  // 0000:c1:00.0 is not one of the GPUs
  EXPECT_EQ(d.findings[0].id, "pcie.bandwidth_limited");
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].gpus, std::vector<std::string>{"0000:18:00.0"});
  ExpectBilingual(d);
  EXPECT_TRUE(RunRule(kPcieBandwidthLimitedRule, WithEvents({})).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
