#include "render/report_timeline.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "render/report_json.h"
#include "render/report_text.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

struct TimelineFixture {
  DiagnosisInput input;
  Diagnosis diagnosis;
  Timeline timeline;
  ReportContext report;
  explicit TimelineFixture(Lang lang) {
    input = InputFromReadings({{HealthyGpu(0)}, {HealthyGpu(0)}});
    input.kernel = KernelFacts{};
    input.kernel->events.push_back(
        MakeEvent(KernelEventKind::kXid, 79, HealthyGpu(0).pci_bus_id, "Xid 79 fell off", TestTime(100)));
    diagnosis = Diagnose(input, {});
    FindingInterval hot;
    hot.finding_id = "thermal.slowdown";
    hot.severity = Severity::kWarning;
    hot.gpus = {HealthyGpu(0).pci_bus_id};
    hot.title = Text{"GPU 0 slows down for heat", "GPU 0 因过热降频"};
    hot.start = TestTime(50);
    hot.end = TestTime(50 + 28 * 60 + 45);
    FindingInterval brake = hot;
    brake.finding_id = "power.brake";
    brake.start = TestTime(120);
    brake.end.reset();
    timeline.findings = {hot, brake};
    ThrottleTime t;
    t.pci_bus_id = HealthyGpu(0).pci_bus_id;
    t.seconds_by_reason = {{"sw_thermal_slowdown", 1725}, {"hw_power_brake_slowdown", 0}};
    t.sampled_seconds = 3450;
    timeline.throttled = {t};
    report.input = &input;
    report.diagnosis = &diagnosis;
    report.lang = lang;
    report.command = "report";
    report.timeline = &timeline;
  }
};

TEST(ReportTimeline, SpansReadLikeDurations) {
  EXPECT_EQ(FormatSpan(12.4, Lang::kEn), "12 s");
  EXPECT_EQ(FormatSpan(28 * 60 + 45, Lang::kEn), "28 min 45 s");
  EXPECT_EQ(FormatSpan(3 * 3600 + 2 * 60 + 10, Lang::kEn), "3 h 02 min");
  EXPECT_EQ(FormatSpan(28 * 60 + 45, Lang::kZh), "28 分 45 秒");
  EXPECT_EQ(FormatSpan(-3, Lang::kEn), "0 s");
}

TEST(ReportTimeline, RowsMergeFindingsAndEventsInTimeOrder) {
  TimelineFixture f(Lang::kEn);
  auto rows = TimelineRows(f.report);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].what, "thermal.slowdown");
  EXPECT_TRUE(rows[0].is_finding);
  EXPECT_EQ(rows[1].what, "xid 79");
  EXPECT_FALSE(rows[1].is_finding);
  EXPECT_EQ(rows[2].what, "power.brake");
  ReportContext without = f.report;
  without.timeline = nullptr;
  EXPECT_TRUE(TimelineRows(without).empty());
}

TEST(ReportTimeline, JsonHasTheTimelineListAndThrottleSeconds) {
  TimelineFixture f(Lang::kEn);
  auto j = ReportToJson(f.report);
  ASSERT_TRUE(j.contains("timeline"));
  const auto& tl = j["timeline"];
  ASSERT_EQ(tl.size(), 3u);
  EXPECT_EQ(tl[0]["type"], "finding");
  EXPECT_EQ(tl[0]["id"], "thermal.slowdown");
  EXPECT_EQ(tl[0]["duration_s"], 28 * 60 + 45);
  EXPECT_EQ(tl[1]["type"], "event");
  EXPECT_EQ(tl[1]["event"], "xid 79");
  EXPECT_TRUE(tl[2]["end"].is_null()) << "still active";
  ASSERT_EQ(j["gpus"].size(), 1u);
  EXPECT_EQ(j["gpus"][0]["throttled_seconds"]["sw_thermal_slowdown"], 1725);
  // Without a timeline (diagnose, analyze) the key is absent.
  f.report.timeline = nullptr;
  EXPECT_FALSE(ReportToJson(f.report).contains("timeline"));
}

TEST(ReportTimeline, TextAndMarkdownShowStartEndAndThrottling) {
  TimelineFixture f(Lang::kEn);
  std::string text = ReportToText(f.report, false);
  EXPECT_NE(text.find("Timeline"), std::string::npos);
  EXPECT_NE(text.find("(28 min 45 s)"), std::string::npos) << text;
  EXPECT_NE(text.find("still active"), std::string::npos);
  EXPECT_NE(text.find("sw_thermal_slowdown 28 min 45 s (50 %)"), std::string::npos) << text;
  EXPECT_EQ(text.find("hw_power_brake_slowdown"), std::string::npos) << "zero seconds are left out";
  std::string md = ReportToMarkdown(f.report);
  EXPECT_NE(md.find("## Timeline"), std::string::npos);
  EXPECT_NE(md.find("`thermal.slowdown`"), std::string::npos);
  TimelineFixture zh(Lang::kZh);
  std::string zh_text = ReportToText(zh.report, false);
  EXPECT_NE(zh_text.find("时间线"), std::string::npos);
  EXPECT_NE(zh_text.find("仍在持续"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::testing
