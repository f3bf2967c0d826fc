#include "agent/finding_tracker.h"

#include <gtest/gtest.h>

#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

Finding Make(const std::string& id, Severity s, std::vector<std::string> gpus = {"0000:18:00.0"}) {
  Finding f;
  f.id = id;
  f.severity = s;
  f.gpus = std::move(gpus);
  f.title = Text{id + " title", "标题"};
  return f;
}

TEST(AgentFindingTracker, StartsOnceExtendsAndEndsWhereLastSeen) {
  FindingTracker t(2);
  auto c1 = t.Update({Make("thermal.slowdown", Severity::kWarning)}, TestTime(10));
  ASSERT_EQ(c1.seen.size(), 1u);
  EXPECT_EQ(c1.seen[0].start, TestTime(10));
  EXPECT_TRUE(c1.cleared.empty());
  auto c2 = t.Update({Make("thermal.slowdown", Severity::kCritical)}, TestTime(20));
  ASSERT_EQ(c2.seen.size(), 1u);
  EXPECT_EQ(c2.seen[0].start, TestTime(10)) << "an active finding keeps its start";
  EXPECT_EQ(c2.seen[0].severity, Severity::kCritical);
  // One miss is not enough to end it (clear_after = 2).
  auto c3 = t.Update({}, TestTime(30));
  EXPECT_TRUE(c3.cleared.empty());
  EXPECT_EQ(t.Active().size(), 1u);
  auto c4 = t.Update({}, TestTime(40));
  ASSERT_EQ(c4.cleared.size(), 1u);
  EXPECT_EQ(c4.cleared[0].finding_id, "thermal.slowdown");
  ASSERT_TRUE(c4.cleared[0].end.has_value());
  EXPECT_EQ(*c4.cleared[0].end, TestTime(20));
  EXPECT_EQ(c4.cleared[0].severity, Severity::kCritical) << "worst severity of the interval";
  EXPECT_TRUE(t.Active().empty());
}

TEST(AgentFindingTracker, AFlickerWithinClearAfterStaysOneInterval) {
  FindingTracker t(2);
  t.Update({Make("power.brake", Severity::kWarning)}, TestTime(0));
  t.Update({}, TestTime(10));
  auto c = t.Update({Make("power.brake", Severity::kWarning)}, TestTime(20));
  ASSERT_EQ(c.seen.size(), 1u);
  EXPECT_EQ(c.seen[0].start, TestTime(0));
  EXPECT_TRUE(c.cleared.empty());
}

TEST(AgentFindingTracker, SameIdOnDifferentGpusAreSeparateAndOkIsIgnored) {
  FindingTracker t(1);
  auto c = t.Update({Make("thermal.slowdown", Severity::kWarning, {"0000:18:00.0"}),
                     Make("thermal.slowdown", Severity::kWarning, {"0000:19:00.0"}),
                     Make("gpu.healthy", Severity::kOk)},
                    TestTime(5));
  EXPECT_EQ(c.seen.size(), 2u);
  EXPECT_EQ(t.Active().size(), 2u);
  auto c2 = t.Update({Make("thermal.slowdown", Severity::kWarning, {"0000:19:00.0"})}, TestTime(6));
  ASSERT_EQ(c2.cleared.size(), 1u);
  EXPECT_EQ(c2.cleared[0].gpus, std::vector<std::string>{"0000:18:00.0"});
}

TEST(AgentFindingTracker, CloseAllEndsEveryOpenIntervalWhereLastSeen) {
  FindingTracker t(3);
  t.Update({Make("power.brake", Severity::kWarning), Make("xid.memory", Severity::kCritical)},
           TestTime(0));
  t.Update({Make("power.brake", Severity::kWarning)}, TestTime(10));
  auto closed = t.CloseAll();
  ASSERT_EQ(closed.size(), 2u);
  for (const auto& f : closed) {
    ASSERT_TRUE(f.end.has_value());
    EXPECT_EQ(*f.end, f.finding_id == "power.brake" ? TestTime(10) : TestTime(0)) << f.finding_id;
  }
  EXPECT_TRUE(t.Active().empty());
}

// With the times of its evidence, an interval runs from the first to the
// last of them, not from the evaluation that first saw it to the last one
// that still did; an evaluation without an evidence time (the finding's
// evidence lies in older readings) keeps the last one known.
TEST(AgentFindingTracker, IntervalsRunFromFirstToLastEvidence) {
  FindingTracker t(2);
  Finding f = Make("thermal.high_temperature", Severity::kWarning);
  f.first_evidence = TestTime(5);
  f.last_evidence = TestTime(9);
  auto c1 = t.Update({f}, TestTime(10));
  ASSERT_EQ(c1.started.size(), 1u);
  EXPECT_EQ(c1.started[0].start, TestTime(5));
  f.first_evidence.reset();
  f.last_evidence = TestTime(14);
  auto c2 = t.Update({f}, TestTime(20));
  EXPECT_TRUE(c2.started.empty()) << "already open";
  ASSERT_EQ(c2.seen.size(), 1u);
  EXPECT_EQ(c2.seen[0].start, TestTime(5));
  f.last_evidence.reset();
  t.Update({f}, TestTime(30));  // the window still holds it; nothing newer shows it
  t.Update({}, TestTime(40));
  auto c5 = t.Update({}, TestTime(50));
  ASSERT_EQ(c5.cleared.size(), 1u);
  ASSERT_TRUE(c5.cleared[0].end);
  EXPECT_EQ(*c5.cleared[0].end, TestTime(14)) << "not 30 s, where it was last seen";
}

// The wall clock stepped back after the interval started (NTP at boot): its
// end is never before its start.
TEST(AgentFindingTracker, AClockStepBackNeverEndsAnIntervalBeforeItStarts) {
  FindingTracker t(1);
  Finding f = Make("thermal.high_temperature", Severity::kWarning);
  f.first_evidence = TestTime(100);
  f.last_evidence = TestTime(105);
  t.Update({f}, TestTime(110));
  f.first_evidence.reset();
  f.last_evidence.reset();
  t.Update({f}, TestTime(50));  // the clock went back 60 s
  auto c = t.Update({}, TestTime(60));
  ASSERT_EQ(c.cleared.size(), 1u);
  ASSERT_TRUE(c.cleared[0].end);
  EXPECT_GE(*c.cleared[0].end, c.cleared[0].start);
}

}  // namespace
}  // namespace gpudoctor::testing
