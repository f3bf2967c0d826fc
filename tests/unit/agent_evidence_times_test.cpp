#include <gtest/gtest.h>

#include "agent/evidence_times.h"
#include "agent/finding_tracker.h"
#include "agent/sliding_window.h"
#include "rules/engine/engine.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

// The agent's loop without the agent: a reading every second into a 60 s
// sliding window, the rules every 10 s, the tracker's intervals.
class EvidenceLoop {
 public:
  explicit EvidenceLoop(bool stamp) : stamp_(stamp) {}

  void Sample(double t, std::vector<GpuStatus> gpus) {
    SystemStatus s;
    s.nvml_loaded = true;
    s.gpus = std::move(gpus);
    window_.AddReading(TestTime(t), std::move(s));
  }
  void Event(KernelEvent e) { window_.AddEvent(std::move(e)); }

  void Evaluate(double t) {
    const WallTime now = TestTime(t);
    window_.Trim(now);
    DiagnosisInput input;
    window_.Fill(input);
    input.kernel->nvml_xid_events = true;
    Diagnosis d = Diagnose(input);
    if (stamp_) {
      StampEvidenceTimes(input, last_, d.findings,
                         [&](const Finding& f) { return !tracker_.IsOpen(f); });
    }
    last_ = now;
    auto changes = tracker_.Update(d.findings, now);
    for (auto& f : changes.cleared) ended.push_back(std::move(f));
  }

  const FindingInterval* Ended(const std::string& id) const {
    for (const auto& f : ended) {
      if (f.finding_id == id) return &f;
    }
    return nullptr;
  }

  std::vector<FindingInterval> ended;

 private:
  bool stamp_;
  SlidingWindow window_{std::chrono::seconds(60)};
  FindingTracker tracker_;
  std::optional<WallTime> last_;
};

// GPU 0 at 90 °C from 5 s to 24 s (no clock-event reason: not a throttling
// finding), an Xid 13 on GPU 1 at 33.5 s; two minutes of readings.
void RunHotThenXid(EvidenceLoop& loop) {
  for (int t = 0; t <= 120; ++t) {
    GpuStatus hot = HealthyGpu(0);
    if (t >= 5 && t <= 24) hot.temperature_c = 90;
    loop.Sample(t, {hot, HealthyGpu(1)});
    if (t == 33) {
      loop.Event(MakeEvent(KernelEventKind::kXid, 13, HealthyGpu(1).pci_bus_id,
                           "NVRM: Xid (PCI:0000:19:00): 13, pid=77, name=python3, Graphics "
                           "SM Warp Exception",
                           TestTime(33.5)));
    }
    if (t > 0 && t % 10 == 0) loop.Evaluate(t);
  }
}

TEST(AgentEvidenceTimes, IntervalsRunFromTheFirstToTheLastReadingOrEventThatShowedIt) {
  EvidenceLoop loop(true);
  RunHotThenXid(loop);
  // The hot readings, not when the 60 s window stopped holding them (80 s).
  const FindingInterval* hot = loop.Ended("thermal.high_temperature");
  ASSERT_NE(hot, nullptr);
  EXPECT_EQ(hot->start, TestTime(5));
  EXPECT_EQ(hot->end, TestTime(24));
  // One event: the interval is its moment.
  const FindingInterval* xid = loop.Ended("xid.application");
  ASSERT_NE(xid, nullptr);
  EXPECT_EQ(xid->start, TestTime(33.5));
  EXPECT_EQ(xid->end, TestTime(33.5));
}

// What the evaluations alone give, for contrast: the interval trails the
// evidence by up to the rules window.
TEST(AgentEvidenceTimes, WithoutEvidenceTimesTheIntervalTrailsByTheWindow) {
  EvidenceLoop loop(false);
  RunHotThenXid(loop);
  const FindingInterval* hot = loop.Ended("thermal.high_temperature");
  ASSERT_NE(hot, nullptr);
  EXPECT_EQ(hot->start, TestTime(10));
  EXPECT_EQ(hot->end, TestTime(80));
}

// A condition that holds to the window's end is evidenced at its newest
// reading and first at the searched stretch's start; a finding of no known
// rule keeps no evidence time.
TEST(AgentEvidenceTimes, HeldConditionIsEvidencedNowAndAnUnknownRuleIsLeftUnset) {
  DiagnosisInput in;
  for (int t = 0; t < 10; ++t) {
    GpuStatus g = HealthyGpu(0);
    g.temperature_c = 90;  // held throughout
    SystemStatus s;
    s.nvml_loaded = true;
    s.gpus = {g};
    AddReading(in, s, TestTime(t));
  }
  Diagnosis d = Diagnose(in);
  ASSERT_TRUE(HasFinding(d, "thermal.high_temperature"));
  std::vector<Finding> findings = d.findings;
  Finding unknown;
  unknown.id = "no.such_rule";
  findings.push_back(unknown);
  StampEvidenceTimes(in, TestTime(4.5), findings, [](const Finding&) { return true; });
  for (const Finding& f : findings) {
    if (f.id == "thermal.high_temperature") {
      ASSERT_TRUE(f.last_evidence);
      EXPECT_EQ(*f.last_evidence, TestTime(9));
      ASSERT_TRUE(f.first_evidence);
      EXPECT_EQ(*f.first_evidence, TestTime(4))
          << "the searched stretch starts at the reading before";
    }
    if (f.id == "no.such_rule") {
      EXPECT_FALSE(f.last_evidence);
      EXPECT_FALSE(f.first_evidence);
    }
  }
}

int evidence_rule_runs = 0;

// A host-wide finding whenever the stretch holds a reading: shown by every
// stretch, so the search runs the rule at every cut it has.
void CountedRuleEvaluate(const DiagnosisInput& in, RuleOutput& out) {
  ++evidence_rule_runs;
  if (!in.gpus.empty() && !in.gpus[0].readings.empty()) out.Add(Severity::kInfo);
}

constexpr Rule kCountedRule{"test.counted", "test", "counts its runs", kNeedsNothing,
                            CountedRuleEvaluate};

// A flood of distinct times between two evaluations (2,000 readings 5 ms
// apart): the rule runs a bounded number of times, and the evidence still
// ends at the newest reading and starts at the first.
TEST(AgentEvidenceTimes, AFloodOfTimesRunsTheRuleABoundedNumberOfTimes) {
  DiagnosisInput in;
  for (int i = 0; i < 2000; ++i) {
    SystemStatus s;
    s.nvml_loaded = true;
    s.gpus = {HealthyGpu(0)};
    AddReading(in, s, TestTime(i * 0.005));
  }
  Finding f;
  f.id = "test.counted";
  std::vector<Finding> findings{f};
  const std::vector<const Rule*> rules{&kCountedRule};
  evidence_rule_runs = 0;
  StampEvidenceTimes(in, std::nullopt, findings, [](const Finding&) { return true; }, &rules);
  EXPECT_LE(evidence_rule_runs, 4 * 64) << "about twice per cut, at most 64 cuts";
  ASSERT_TRUE(findings[0].last_evidence);
  EXPECT_EQ(*findings[0].last_evidence, TestTime(1999 * 0.005));
  ASSERT_TRUE(findings[0].first_evidence);
  EXPECT_EQ(*findings[0].first_evidence, TestTime(0));
}

}  // namespace
}  // namespace gpudoctor::testing
