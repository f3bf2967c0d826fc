// check's verdict: each condition against findings, the unknown case, and the
// node-problem-detector and Slurm lines.
#include "check/check_verdict.h"

#include <gtest/gtest.h>

namespace gpudoctor {
namespace {

CheckSource Source(std::vector<CheckFinding> findings) {
  CheckSource s;
  s.origin = "agent state";
  s.gpus = {CheckGpu{0, "0000:18:00.0", "H100", "ok", ""},
            CheckGpu{1, "0000:19:00.0", "H100", "ok", ""}};
  s.findings = std::move(findings);
  return s;
}

CheckFinding F(std::string id, Severity severity, std::string title = "a title") {
  return CheckFinding{
      std::move(id), severity, {"0000:19:00.0"}, std::move(title), RecoveryAction::kNone};
}

CheckStatus StatusOf(const CheckSource& s, CheckCondition c,
                     Severity threshold = Severity::kCritical) {
  return EvaluateCheck(s, {c}, threshold).status;
}

bool IsAscii(const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7F) return false;
  }
  return true;
}

TEST(CheckVerdict, ConditionNamesRoundTrip) {
  ASSERT_EQ(AllCheckConditions().size(), 4u);
  for (CheckCondition c : AllCheckConditions()) {
    EXPECT_EQ(ParseCheckCondition(CheckConditionName(c)), c);
  }
  EXPECT_EQ(ParseCheckCondition("GPUDropped"), CheckCondition::kGpuDropped);
  EXPECT_FALSE(ParseCheckCondition("gpuhealthy"));
}

TEST(CheckVerdict, HealthyFollowsTheSeverityThreshold) {
  auto warn = Source({F("thermal.high_temperature", Severity::kWarning)});
  EXPECT_EQ(StatusOf(warn, CheckCondition::kGpuHealthy, Severity::kCritical), CheckStatus::kOk);
  EXPECT_EQ(StatusOf(warn, CheckCondition::kGpuHealthy, Severity::kWarning), CheckStatus::kProblem);
  auto info = Source({F("utilization.saturated", Severity::kInfo)});
  EXPECT_EQ(StatusOf(info, CheckCondition::kGpuHealthy, Severity::kWarning), CheckStatus::kOk);
  auto crit = Source({F("ecc.uncorrectable", Severity::kCritical, "Uncorrectable ECC errors")});
  auto r = EvaluateCheck(crit, {CheckCondition::kGpuHealthy}, Severity::kCritical);
  EXPECT_EQ(r.status, CheckStatus::kProblem);
  EXPECT_EQ(r.worst, Severity::kCritical);
  EXPECT_EQ(r.reason, "ecc.uncorrectable on 0000:19:00.0: Uncorrectable ECC errors");
}

TEST(CheckVerdict, EachConditionLooksAtItsOwnFindings) {
  struct Case {
    const char* id;
    Severity severity;
    CheckCondition problem_for;
  };
  const Case cases[] = {
      {"gpu.dropped", Severity::kCritical, CheckCondition::kGpuDropped},
      {"gpu.lost", Severity::kCritical, CheckCondition::kGpuDropped},
      {"thermal.slowdown", Severity::kCritical, CheckCondition::kGpuThrottled},
      {"power.brake", Severity::kCritical, CheckCondition::kGpuThrottled},
      {"xid.memory", Severity::kCritical, CheckCondition::kXidErrors},
      {"nvswitch.sxid", Severity::kCritical, CheckCondition::kXidErrors},
  };
  for (const auto& c : cases) {
    auto s = Source({F(c.id, c.severity)});
    for (CheckCondition cond :
         {CheckCondition::kGpuDropped, CheckCondition::kGpuThrottled, CheckCondition::kXidErrors}) {
      EXPECT_EQ(StatusOf(s, cond), cond == c.problem_for ? CheckStatus::kProblem : CheckStatus::kOk)
          << c.id << " / " << CheckConditionName(cond);
    }
    EXPECT_EQ(StatusOf(s, CheckCondition::kGpuHealthy), CheckStatus::kProblem) << c.id;
  }
  // A GPU falling off the bus is both dropped and an Xid.
  auto bus = Source({F("xid.fallen_off_bus", Severity::kCritical)});
  EXPECT_EQ(StatusOf(bus, CheckCondition::kGpuDropped), CheckStatus::kProblem);
  EXPECT_EQ(StatusOf(bus, CheckCondition::kXidErrors), CheckStatus::kProblem);
  // An application's own Xid is not the node's fault.
  auto app = Source({F("xid.application", Severity::kWarning)});
  EXPECT_EQ(StatusOf(app, CheckCondition::kXidErrors, Severity::kWarning), CheckStatus::kOk);
}

TEST(CheckVerdict, DroppedCountsWarningsEvenAtCriticalThreshold) {
  auto s = Source({F("gpu.dropped", Severity::kWarning)});
  EXPECT_EQ(StatusOf(s, CheckCondition::kGpuDropped, Severity::kCritical), CheckStatus::kProblem);
  EXPECT_EQ(StatusOf(s, CheckCondition::kGpuHealthy, Severity::kCritical), CheckStatus::kOk);
}

TEST(CheckVerdict, LostGpuStateBecomesAFinding) {
  auto s = Source({});
  s.gpus[1].state = "hung";
  AddGpuStateFindings(s);
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_EQ(s.findings[0].id, "gpu.lost");
  EXPECT_EQ(s.findings[0].gpus, std::vector<std::string>{"0000:19:00.0"});
  EXPECT_EQ(StatusOf(s, CheckCondition::kGpuDropped), CheckStatus::kProblem);
  // Not twice when the agent already has the finding.
  AddGpuStateFindings(s);
  EXPECT_EQ(s.findings.size(), 1u);
}

TEST(CheckVerdict, UnknownWithoutGpusUnlessAFindingExplains) {
  auto s = Source({});
  s.gpus.clear();
  s.gpus_visible = false;
  s.unknown_reason = "no NVIDIA GPU or driver found";
  auto r = EvaluateCheck(s, AllCheckConditions(), Severity::kCritical);
  EXPECT_EQ(r.status, CheckStatus::kUnknown);
  EXPECT_EQ(r.reason, "unknown: no NVIDIA GPU or driver found");
  s.findings = {F("driver.not_loaded", Severity::kCritical)};
  EXPECT_EQ(EvaluateCheck(s, {CheckCondition::kGpuHealthy}, Severity::kCritical).status,
            CheckStatus::kProblem);
}

TEST(CheckVerdict, WorstConditionDecidesAndMoreAreCounted) {
  auto s = Source({F("thermal.slowdown", Severity::kCritical, "hot"),
                   F("gpu.lost", Severity::kCritical, "GPU 1 is lost"),
                   F("power.brake", Severity::kCritical, "brake")});
  auto r = EvaluateCheck(s, AllCheckConditions(), Severity::kCritical);
  EXPECT_EQ(r.status, CheckStatus::kProblem);
  ASSERT_EQ(r.conditions.size(), 4u);
  EXPECT_EQ(r.conditions[0].reason, "gpu.lost on 0000:19:00.0: GPU 1 is lost (+2 more)");
  EXPECT_EQ(r.conditions[1].reason, "gpu.lost on 0000:19:00.0: GPU 1 is lost");
  EXPECT_EQ(r.conditions[3].status, CheckStatus::kOk);
  auto ok = EvaluateCheck(Source({}), AllCheckConditions(), Severity::kCritical);
  EXPECT_EQ(ok.status, CheckStatus::kOk);
  EXPECT_EQ(ok.reason, "2 GPUs: all checks passed (agent state)");
}

TEST(CheckVerdict, AsciiLineSpellsSymbolsAndCuts) {
  EXPECT_EQ(AsciiLine("temperature 91 °C ≥ 85 — hot\n", 80), "temperature 91 C >= 85 - hot");
  EXPECT_EQ(AsciiLine("GPU 温度", 80), "GPU ??");
  EXPECT_EQ(AsciiLine("bad \xff byte\x01", 80), "bad ? byte?");
  EXPECT_EQ(AsciiLine("abcdefghij", 8), "abcde...");
  EXPECT_EQ(AsciiLine("abcdefgh", 8), "abcdefgh");
}

TEST(CheckVerdict, NpdLineIsShortAscii) {
  std::string long_title(200, 'x');
  long_title += " 91 °C";
  auto r = EvaluateCheck(Source({F("thermal.slowdown", Severity::kCritical, long_title)}),
                         {CheckCondition::kGpuHealthy}, Severity::kCritical);
  const std::string line = NpdLine(r);
  EXPECT_LE(line.size(), 80u);
  EXPECT_TRUE(IsAscii(line)) << line;
  EXPECT_EQ(line.rfind("thermal.slowdown on 0000:19:00.0: xxx", 0), 0u) << line;
  EXPECT_EQ(line.substr(line.size() - 3), "...");
}

// The recovery action ends both lines, never cut: what a remediation reads.
TEST(CheckVerdict, NpdAndSlurmLinesEndWithTheStrictestAction) {
  CheckFinding lost{"gpu.lost",
                    Severity::kCritical,
                    {"0000:19:00.0"},
                    std::string(200, 'x'),
                    RecoveryAction::kRebootNode};
  CheckFinding ecc{
      "ecc.uncorrectable", Severity::kCritical, {"0000:18:00.0"}, "ECC", RecoveryAction::kResetGpu};
  auto r = EvaluateCheck(Source({ecc, lost}), AllCheckConditions(), Severity::kCritical);
  EXPECT_EQ(r.recommended, RecoveryAction::kRebootNode);
  const std::string line = NpdLine(r);
  EXPECT_LE(line.size(), 80u) << line;
  EXPECT_TRUE(line.ends_with("... [action: reboot_node]")) << line;
  EXPECT_EQ(SlurmReason(r), "GPU 1 lost 0000:19:00.0, reboot_node [gpudoctor]");
  // The named cause's action, not the strictest: the reason stays one text.
  ecc.recommended = RecoveryAction::kHardwareInspection;
  auto stricter = EvaluateCheck(Source({ecc, lost}), AllCheckConditions(), Severity::kCritical);
  EXPECT_EQ(stricter.recommended, RecoveryAction::kHardwareInspection);
  EXPECT_EQ(SlurmReason(stricter), "GPU 1 lost 0000:19:00.0, reboot_node [gpudoctor]");
  // Below the threshold it makes no problem and no action.
  auto quiet = EvaluateCheck(Source({ecc}), {CheckCondition::kGpuThrottled}, Severity::kCritical);
  EXPECT_EQ(quiet.recommended, RecoveryAction::kNone);
  EXPECT_EQ(NpdLine(quiet).find("action"), std::string::npos);
  // A GPU lost in state only (no finding yet) needs a reboot too.
  CheckSource state = Source({});
  state.gpus[1].state = "lost";
  AddGpuStateFindings(state);
  EXPECT_EQ(EvaluateCheck(state, AllCheckConditions(), Severity::kCritical).recommended,
            RecoveryAction::kRebootNode);
}

TEST(CheckVerdict, SlurmReasonHasNoShellOrQuoteCharacters) {
  auto r = EvaluateCheck(
      Source({F("xid.other", Severity::kCritical,
                "Xid 999 'weird' \"quoted\" $(rm -rf /); `x` & y | z > w <v> \\ ! * ? #\nnext")}),
      {CheckCondition::kGpuHealthy}, Severity::kCritical);
  const std::string reason = SlurmReason(r);
  EXPECT_EQ(reason, "GPU 1 xid.other 0000:19:00.0 [gpudoctor]");
  EXPECT_LE(reason.size(), 100u);
  for (char c : reason) {
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) ||
                std::string_view(" .,:_/+=@%-[]").find(c) != std::string_view::npos)
        << "'" << c << "' in " << reason;
  }
  EXPECT_EQ(reason.find("  "), std::string::npos) << reason;
}

}  // namespace
}  // namespace gpudoctor

namespace gpudoctor {
namespace {

// sinfo -R shows about 20 characters of the reason: what matters comes first,
// and the text depends on the cause only, not on which title said it.
TEST(CheckVerdict, SlurmReasonLeadsWithTheGpuAndStaysStable) {
  auto raw = Source({F("gpu.lost", Severity::kCritical, "GPU 1 is lost (NVML: GPU is lost)")});
  auto titled = Source({F("gpu.lost", Severity::kCritical,
                          "GPU 1 (0000:19:00.0) is lost: it fell off the bus or cannot be reached")});
  auto xid = Source({F("xid.fallen_off_bus", Severity::kCritical,
                       "GPU 1 (0000:19:00.0) fell off the bus \u2014 Xid 79")});
  const auto all = AllCheckConditions();
  const std::string reason = SlurmReason(EvaluateCheck(raw, all, Severity::kCritical));
  EXPECT_EQ(reason, "GPU 1 lost 0000:19:00.0 [gpudoctor]");
  EXPECT_EQ(SlurmReason(EvaluateCheck(titled, all, Severity::kCritical)), reason);
  EXPECT_EQ(SlurmReason(EvaluateCheck(xid, all, Severity::kCritical)), reason);
}

// A lost GPU must not hide behind a slowdown finding that sorts first.
TEST(CheckVerdict, LostGpuComesBeforeAnEarlierSlowdown) {
  CheckFinding slow{"thermal.slowdown",
                    Severity::kCritical,
                    {"0000:18:00.0"},
                    "GPU 0 slows down",
                    RecoveryAction::kNone};
  CheckFinding lost{
      "gpu.lost", Severity::kWarning, {"0000:19:00.0"}, "GPU 1 is lost", RecoveryAction::kNone};
  auto s = Source({slow, lost});
  auto r = EvaluateCheck(s, AllCheckConditions(), Severity::kWarning);
  EXPECT_EQ(r.reason.rfind("gpu.lost", 0), 0u) << r.reason;
  EXPECT_EQ(r.worst, Severity::kCritical);  // the slowdown still sets the severity
  EXPECT_EQ(SlurmReason(r).rfind("GPU 1 lost 0000:19:00.0", 0), 0u) << SlurmReason(r);
  auto healthy = EvaluateCheck(s, {CheckCondition::kGpuHealthy}, Severity::kWarning);
  EXPECT_EQ(healthy.reason.rfind("gpu.lost", 0), 0u) << healthy.reason;
}

// Slurm resets a reason's time when its text changes: a slowdown that comes
// and goes, or the lost GPU's own Xid 79, leaves the reason as it is; another
// GPU lost is counted.
TEST(CheckVerdict, SlurmReasonCountsOnlyMoreGpusWithTheSameCause) {
  const CheckFinding lost{
      "gpu.lost", Severity::kCritical, {"0000:19:00.0"}, "GPU 1 is lost", RecoveryAction::kNone};
  const CheckFinding xid{"xid.fallen_off_bus",
                         Severity::kCritical,
                         {"0000:19:00.0"},
                         "GPU 1 fell off the bus",
                         RecoveryAction::kNone};
  const CheckFinding slow{"thermal.slowdown",
                          Severity::kCritical,
                          {"0000:18:00.0"},
                          "GPU 0 slows down",
                          RecoveryAction::kNone};
  const CheckFinding lost0{
      "gpu.lost", Severity::kCritical, {"0000:18:00.0"}, "GPU 0 is lost", RecoveryAction::kNone};
  const auto all = AllCheckConditions();
  const std::string alone = SlurmReason(EvaluateCheck(Source({lost}), all, Severity::kCritical));
  EXPECT_EQ(alone, "GPU 1 lost 0000:19:00.0 [gpudoctor]");
  EXPECT_EQ(SlurmReason(EvaluateCheck(Source({lost, xid, slow}), all, Severity::kCritical)), alone);
  EXPECT_EQ(SlurmReason(EvaluateCheck(Source({lost, lost0}), all, Severity::kCritical)),
            "GPU 1 lost 0000:19:00.0 +1 more [gpudoctor]");
}

// Without NVML the Slurm reason is short and plain, not NVML's error text cut.
TEST(CheckVerdict, UnknownSlurmReasonIsShort) {
  CheckSource s;
  s.origin = "diagnosis";
  s.gpus_visible = false;
  s.unknown_reason = "no NVIDIA GPU or driver found no NVIDIA driver found cannot load the NVIDIA "
                     "management library libnvidia-ml.so.1: cannot open shared object file";
  const std::string reason = SlurmReason(EvaluateCheck(s, AllCheckConditions(), Severity::kCritical));
  EXPECT_EQ(reason, "GPUs not visible, no NVML [gpudoctor]");
}

}  // namespace
}  // namespace gpudoctor
