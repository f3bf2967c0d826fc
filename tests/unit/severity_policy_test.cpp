// The severity policy for Xid and SXid codes (knowledge/severity_policy.h,
// knowledge/sxid_catalog.h) and where it is applied: the nvswitch.sxid and
// fabricmanager.log_events rules, and [severity] overrides in the engine.
// SXid lines are real: leptonai/gpud components/accelerator/nvidia/sxid/
// README.md (also facts/nvml-facts.md section 3.3), the MENTHOS root-cause
// data set (huggingface.co/datasets/LHRS-UM-FERI/MENTHOS-dataset-rootcause),
// NVIDIA/nccl issue #1043 (Fabric Manager multicast errors) and the shared
// fixture gpud-testdata-fabricmanager-log-nvswitch-nonfatal-12028.log.
#include "knowledge/severity_policy.h"

#include <gtest/gtest.h>

#include <sstream>

#include "knowledge/sxid_catalog.h"
#include "parse/kernel_events.h"
#include "rules/engine/engine.h"
#include "rules/kernel_events/group.h"
#include "support/fixtures.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace severity_policy_test_ns {

std::vector<KernelEvent> PolicyTestEvents(const std::vector<std::string>& texts) {
  std::vector<LogLine> lines;
  for (const auto& t : texts)
    lines.push_back(LogLine{t, SourceRef{"t.log", lines.size() + 1}, {}, {}});
  return ExtractKernelEvents(lines, {});
}

TEST(SxidCatalog, LevelsComeFromNvidiasGuideNotTheLinesWord) {
  auto ltssm = FindSxid(20034);
  ASSERT_TRUE(ltssm);
  EXPECT_EQ(ltssm->name, "LTSSM Fault Up");
  EXPECT_EQ(ltssm->sxid_class, SxidClass::kFatal);
  EXPECT_EQ(SxidLevel(20034, SxidLineSays::kNothing).severity, XidSeverity::kCritical);
  EXPECT_EQ(SxidLevel(26006, SxidLineSays::kNothing).severity, XidSeverity::kCritical);  // SOE halt
  EXPECT_EQ(SxidLevel(12020, SxidLineSays::kNothing).sxid_class, SxidClass::kAlwaysFatal);
  // 12028 is printed "Non-fatal" but stalls NVLink traffic: the impact decides.
  SxidInfo priv = SxidLevel(12028, SxidLineSays::kNonFatal);
  EXPECT_EQ(priv.sxid_class, SxidClass::kNonFatal);
  EXPECT_EQ(priv.severity, XidSeverity::kCritical);
  EXPECT_NE(priv.why.find("stalls"), std::string_view::npos);
  EXPECT_EQ(SxidLevel(11012, SxidLineSays::kNothing).severity, XidSeverity::kInfo);  // corrected
  EXPECT_EQ(SxidLevel(20001, SxidLineSays::kNonFatal).severity, XidSeverity::kWarning);
  // A code no table lists: the line's word, and silence is not "non-fatal".
  EXPECT_EQ(SxidLevel(99999, SxidLineSays::kFatal).severity, XidSeverity::kCritical);
  EXPECT_EQ(SxidLevel(99999, SxidLineSays::kNonFatal).severity, XidSeverity::kWarning);
  SxidInfo silent = SxidLevel(99999, SxidLineSays::kNothing);
  EXPECT_EQ(silent.sxid_class, SxidClass::kUnknown);
  EXPECT_NE(silent.why.find("states no severity"), std::string_view::npos);
}

TEST(SxidCatalog, TableIsSortedAndUnique) {
  auto all = AllSxids();
  ASSERT_GT(all.size(), 90u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].code, all[i].code);
  for (const SxidInfo& s : all) {
    EXPECT_FALSE(s.name.empty()) << s.code;
    EXPECT_FALSE(s.why.empty()) << s.code;
  }
}

// leptonai/gpud sxid README: the second switch prints only the "Severity 1
// Engine instance ..." line of 20034. Main called that switch "non-fatal"
// (a warning); the guide says an LTSSM fault is fatal.
TEST(NvswitchSxidRule, ALineThatStatesNoSeverityIsNotNonFatal) {
  auto events = PolicyTestEvents({
      "[6781753.400584] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM "
      "Fault Up",
      "[6781753.404848] nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 20034, Severity 1 Engine "
      "instance 60 Sub-engine instance 00",
  });
  auto d = RunRule(kNvswitchSxidRule, WithEvents(events));
  ASSERT_EQ(d.findings.size(), 2u);
  for (const Finding& f : d.findings) {
    EXPECT_EQ(f.severity, Severity::kCritical) << f.title.en;
    EXPECT_EQ(f.title.en.find("Non-fatal"), std::string::npos) << f.title.en;
    EXPECT_NE(f.title.en.find("20034 LTSSM Fault Up"), std::string::npos) << f.title.en;
  }
}

// MENTHOS data set: a bare 10002 line (Host_priv_timeout, "other notable" in
// the guide) and a 19084 line the driver prints as Non-fatal.
TEST(NvswitchSxidRule, NotableAndHeartbeatCodesFollowTheGuide) {
  auto bare =
      PolicyTestEvents({"nvidia-nvswitch2: SXid (PCI:0000:c4:00.0): 10002, Severity 5 Engine "
                        "instance 00 Sub-engine instance 00"});
  auto d = RunRule(kNvswitchSxidRule, WithEvents(bare));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].title.en.find("Non-fatal"), std::string::npos) << d.findings[0].title.en;
  auto heartbeat =
      PolicyTestEvents({"nvidia-nvswitch4: SXid (PCI:0000:c6:00.0): 19084, Non-fatal, Link 29 "
                        "AN1 Heartbeat Timeout Error (First)"});
  auto h = RunRule(kNvswitchSxidRule, WithEvents(heartbeat));
  ASSERT_EQ(h.findings.size(), 1u);
  EXPECT_EQ(h.findings[0].severity, Severity::kCritical);  // needs a reset of all GPUs and switches
}

TEST(NvswitchSxidRule, ConfigOverrideReplacesTheLevel) {
  auto events =
      PolicyTestEvents({"nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM "
                        "Fault Up"});
  DiagnosisInput input = WithEvents(events);
  input.config.severity.sxid[20034] = Level::kWarning;
  auto d = RunRule(kNvswitchSxidRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

// The real fabricmanager.log: 12028 is logged "non-fatal" but stalls NVLink
// traffic (guide); gpudoctor makes it critical (main: a warning).
TEST(FabricManagerLogEventsRule, Sxid12028FromTheRealLogIsCritical) {
  const std::string text = test::ReadFixtureFile(
      "kernel", "gpud-testdata-fabricmanager-log-nvswitch-nonfatal-12028.log");
  if (text.empty()) GTEST_SKIP() << "fixture not found below " << SHARED_DIR;
  std::vector<std::string> texts;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) texts.push_back(line);
  auto d = RunRule(kFabricManagerLogEventsRule, WithEvents(PolicyTestEvents(texts)));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].title.en.find("stall"), std::string::npos) << d.findings[0].title.en;
  DiagnosisInput input = WithEvents(PolicyTestEvents(texts));
  input.config.severity.sxid[12028] = Level::kWarning;
  EXPECT_EQ(RunRule(kFabricManagerLogEventsRule, input).findings.at(0).severity,
            Severity::kWarning);
}

// NVIDIA/nccl issue #1043: multicast errors of a running Fabric Manager are
// not "Fabric Manager failed to start" (main's title).
TEST(FabricManagerLogEventsRule, MulticastErrorsAreFabricFailuresNotAFailedStart) {
  auto events = PolicyTestEvents({
      "[Oct 31 2023 20:59:37] [ERROR] [tid 527118] failed to release multicast team with handle "
      "17117060486525261364, cannot find the team",
      "[Oct 31 2023 21:04:55] [ERROR] [tid 527118] failed to find the GPU handle "
      "12766911663723876521 in the multicast team",
  });
  ASSERT_FALSE(events.empty());
  auto d = RunRule(kFabricManagerLogEventsRule, WithEvents(events));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].title.en.find("failed to start"), std::string::npos)
      << d.findings[0].title.en;
  EXPECT_NE(d.findings[0].title.en.find("multicast"), std::string::npos) << d.findings[0].title.en;
}

TEST(XidSeverityPolicy, LevelsAndReasons) {
  const SeverityOverrides none;
  EXPECT_EQ(XidLevel(79, none).severity, XidSeverity::kCritical);
  EXPECT_NE(XidLevel(79, none).why.find("DCGM"), std::string::npos);
  EXPECT_EQ(XidLevel(38, none).severity, XidSeverity::kWarning);  // driver firmware error
  EXPECT_NE(XidLevel(38, none).why.find("firmware"), std::string::npos);
  EXPECT_EQ(XidLevel(13, none).severity, XidSeverity::kWarning);
  SeverityOverrides mine;
  mine.xid[94] = Level::kWarning;
  CodeLevel o = XidLevel(94, mine);
  EXPECT_EQ(o.severity, XidSeverity::kWarning);
  EXPECT_TRUE(o.overridden);
}

// Xid 38 as pasted in bbs.archlinux.org/viewtopic.php?id=283219 (the paste
// ends after the pid): main gave it info.
TEST(XidSeverityPolicy, Xid38IsAFirmwareWarning) {
  auto events = PolicyTestEvents(
      {"Feb 01 14:25:31 archbox kernel: NVRM: Xid (PCI:0000:01:00): 38, pid=1659,"});
  auto d = RunRule(kXidOtherRule, WithEvents(events));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].title.en.find("firmware"), std::string::npos) << d.findings[0].title.en;
}

TEST(XidSeverityPolicy, ConfigOverrideAppliesToEveryXidFinding) {
  // The Xid 94 line of the shared fixture ecc-howto-doc-xid48-63-94-a100-550.90.07.log.
  auto events =
      PolicyTestEvents({"[430954.533994] NVRM: Xid (PCI:0000:52:00): 94, pid='<unknown>', "
                        "name=<unknown>, Contained: SM (0x1). RST: No, D-RST: No"});
  DiagnosisInput input = WithEvents(events);
  Diagnosis before = Diagnose(input);
  ASSERT_FALSE(before.findings.empty());
  input.config.severity.xid[94] = Level::kInfo;
  Diagnosis after = Diagnose(input);
  ASSERT_FALSE(after.findings.empty());
  for (const Finding& f : after.findings) {
    if (std::find(f.xids.begin(), f.xids.end(), 94) == f.xids.end()) continue;
    EXPECT_EQ(f.severity, Severity::kInfo) << f.id;
    EXPECT_NE(f.evidence.back().text.en.find("xid.94"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpudoctor::testing
