// One story per recorded window (report/recorded_report.h): the headline
// carries what the timeline shows still active at its current severity,
// throttling intervals span the samples that showed the reason, and "not
// checked" never names a rule the timeline shows.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/clock_reasons.h"
#include "report/recorded_report.h"
#include "rules/engine/engine.h"
#include "support/rule_testing.h"

namespace gpudoctor {
namespace window_story_test_ns {

using testing::HealthyGpu;
using testing::InputFromReadings;
using testing::TestTime;

// 60 readings a second apart; the GPU at 91 °C for the last `hot` of them.
RecordedReport HotAtTheEnd(std::size_t hot) {
  std::vector<std::vector<GpuStatus>> readings;
  for (std::size_t i = 0; i < 60; ++i) {
    GpuStatus g = HealthyGpu(0);
    if (i >= 60 - hot) g.temperature_c = 91;
    readings.push_back({g});
  }
  RecordedReport r;
  r.input = InputFromReadings(readings);
  r.from = TestTime(0);
  r.to = TestTime(59);
  r.input.window_from = r.from;
  r.input.window_to = r.to;
  r.input.recorded = true;
  r.diagnosis = Diagnose(r.input);
  return r;
}

TEST(WindowStory, AConditionStillActiveIsJudgedOverItsStretch) {
  RecordedReport r = HotAtTheEnd(20);
  // Over the whole window 20 of 60 samples: "briefly above", info.
  const Finding* before = nullptr;
  for (const auto& f : r.diagnosis.findings) {
    if (f.id == "thermal.high_temperature") before = &f;
  }
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(before->severity, Severity::kInfo);
  r.stored.timeline.findings.push_back(FindingInterval{"thermal.high_temperature",
                                                       Severity::kWarning,
                                                       {HealthyGpu(0).pci_bus_id},
                                                       Text{"hot", "hot"},
                                                       TestTime(40),
                                                       std::nullopt,
                                                       std::nullopt});
  r.diagnosis.not_checked.push_back(NotChecked{"thermal.high_temperature", Text{"x", "x"}});
  JudgeActiveStretches(r);
  EXPECT_GE(r.diagnosis.verdict, Severity::kWarning);
  int seen = 0;
  for (const auto& f : r.diagnosis.findings) {
    if (f.id != "thermal.high_temperature") continue;
    ++seen;
    EXPECT_EQ(f.severity, Severity::kWarning);
    EXPECT_EQ(f.title.en.find("briefly"), std::string::npos) << f.title.en;
  }
  EXPECT_EQ(seen, 1);
  ASSERT_EQ(r.diagnosis.gpus.size(), 1u);
  const auto& ids = r.diagnosis.gpus[0].finding_ids;
  EXPECT_NE(std::find(ids.begin(), ids.end(), "thermal.high_temperature"), ids.end());
  for (const auto& n : r.diagnosis.not_checked) EXPECT_NE(n.rule, "thermal.high_temperature");
}

TEST(WindowStory, AnEndedConditionLeavesTheHeadlineAlone) {
  RecordedReport r = HotAtTheEnd(20);
  r.stored.timeline.findings.push_back(FindingInterval{"thermal.high_temperature",
                                                       Severity::kWarning,
                                                       {HealthyGpu(0).pci_bus_id},
                                                       Text{"hot", "hot"},
                                                       TestTime(40),
                                                       TestTime(50),
                                                       std::nullopt});
  JudgeActiveStretches(r);
  for (const auto& f : r.diagnosis.findings) {
    if (f.id == "thermal.high_temperature") {
      EXPECT_EQ(f.severity, Severity::kInfo);
    }
  }
}

TEST(WindowStory, ThrottlingIntervalsSpanTheSamplesWithTheReason) {
  // HW thermal slowdown in samples 10..39 (30 s); the agent, evaluating a
  // sliding window, saw it from 14 s to 64 s.
  std::vector<std::vector<GpuStatus>> readings;
  for (std::size_t i = 0; i < 90; ++i) {
    GpuStatus g = HealthyGpu(0);
    g.clock_event_reasons_mask = (i >= 10 && i < 40) ? ClockReasonBit("hw_thermal_slowdown") : 0;
    readings.push_back({g});
  }
  DiagnosisInput input = InputFromReadings(readings);
  Timeline t;
  t.findings.push_back(FindingInterval{"thermal.slowdown",
                                       Severity::kWarning,
                                       {HealthyGpu(0).pci_bus_id},
                                       Text{"slow", "slow"},
                                       TestTime(14),
                                       TestTime(64),
                                       std::nullopt});
  t.findings.push_back(FindingInterval{"cpu.cores_per_gpu",
                                       Severity::kWarning,
                                       {},
                                       Text{"cpu", "cpu"},
                                       TestTime(14),
                                       TestTime(64),
                                       std::nullopt});
  EndAtTheLastSample(input, t);
  EXPECT_EQ(t.findings[0].start, TestTime(10));
  EXPECT_EQ(t.findings[0].end, TestTime(39));
  EXPECT_EQ(t.findings[1].start, TestTime(14));  // not a throttling finding: as stored
  EXPECT_EQ(t.findings[1].end, TestTime(64));
}

}  // namespace
}  // namespace gpudoctor
