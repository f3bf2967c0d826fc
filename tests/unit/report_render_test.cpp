#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "render/report_json.h"
#include "render/report_text.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace report_render_unit_local {

void HotGpu(const DiagnosisInput& input, RuleOutput& out) {
  Finding& f = out.Add(Severity::kCritical);
  f.gpus.push_back(input.gpus.at(1).key);
  f.title = Text{"GPU 1 is too hot", "GPU 1 温度过高"};
  f.explanation = Text{"It slows down.", "它会降频。"};
  f.evidence.push_back(EvidenceItem{Text{"max 91 °C", "最高 91 °C"}, 91, "celsius", std::nullopt, std::nullopt});
  f.evidence.push_back(EvidenceItem{Text{"NVRM: Xid 79", "NVRM: Xid 79"}, std::nullopt, "",
                                    SourceRef{"kern.log", 12}, TestTime(3)});
  f.actions.push_back(Action{Text{"Check the fans | airflow", "检查风扇"}, "nvidia-smi -q -d TEMPERATURE"});
  f.xids = {79};
}
const Rule kHot{"thermal.test", "thermal", "hot", kNeedsGpuReadings, HotGpu};
const Rule kLog{"log.test", "xid", "log", kNeedsKernelLog, HotGpu};

struct Fixture {
  DiagnosisInput input;
  Diagnosis diagnosis;
  ReportContext report;
  explicit Fixture(Lang lang) {
    std::vector<std::vector<GpuStatus>> readings;
    for (int t = 0; t < 3; ++t) {
      GpuStatus g1 = HealthyGpu(1);
      g1.temperature_c = 80 + 5 * t;  // 80, 85, 90
      readings.push_back({HealthyGpu(0), g1});
    }
    input = InputFromReadings(readings);
    input.hostname = "node-7";
    input.kernel_release = "6.1.0-18-amd64";
    diagnosis = Diagnose(input, {&kHot, &kLog});
    report.input = &input;
    report.diagnosis = &diagnosis;
    report.generated_at = TestTime(10);
    report.lang = lang;
  }
};

TEST(ReportJson, CarriesTheSchemaFields) {
  Fixture fx(Lang::kEn);
  auto doc = ReportToJson(fx.report);
  EXPECT_EQ(doc["schema"], "gpudoctor.report/v1");
  EXPECT_EQ(doc["verdict"], "critical");
  EXPECT_EQ(doc["generated_at"], "2026-01-01T00:00:10Z");
  EXPECT_EQ(doc["window"]["from"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(doc["window"]["to"], "2026-01-01T00:00:03Z");
  EXPECT_EQ(doc["host"]["hostname"], "node-7");
  EXPECT_EQ(doc["host"]["kernel"], "6.1.0-18-amd64");
  EXPECT_EQ(doc["host"]["driver_version"], "550.90.07");
  EXPECT_EQ(doc["host"]["cuda_driver_version"], "12.4");
  ASSERT_EQ(doc["gpus"].size(), 2u);
  const auto& g1 = doc["gpus"][1];
  EXPECT_EQ(g1["index"], 1);
  EXPECT_EQ(g1["pci_bus_id"], "0000:19:00.0");
  EXPECT_EQ(g1["verdict"], "critical");
  EXPECT_EQ(g1["metrics"]["temperature_c"]["min"], 80);
  EXPECT_EQ(g1["metrics"]["temperature_c"]["avg"], 85);
  EXPECT_EQ(g1["metrics"]["temperature_c"]["max"], 90);
  EXPECT_EQ(doc["gpus"][0]["verdict"], "ok");
  EXPECT_TRUE(doc["events"].is_array());
  ASSERT_EQ(doc["findings"].size(), 1u);
  const auto& f = doc["findings"][0];
  EXPECT_EQ(f["id"], "thermal.test");
  EXPECT_EQ(f["severity"], "critical");
  EXPECT_EQ(f["gpus"][0], "0000:19:00.0");
  EXPECT_EQ(f["evidence"][0]["value"], 91);
  EXPECT_EQ(f["evidence"][0]["unit"], "celsius");
  EXPECT_EQ(f["evidence"][1]["source"]["file"], "kern.log");
  EXPECT_EQ(f["evidence"][1]["source"]["line"], 12);
  EXPECT_EQ(f["actions"][0]["command"], "nvidia-smi -q -d TEMPERATURE");
  EXPECT_EQ(f["xids"][0], 79);
  ASSERT_EQ(doc["not_checked"].size(), 1u);
  EXPECT_EQ(doc["not_checked"][0]["rule"], "log.test");
}

TEST(ReportJson, ChineseReportHasChineseTexts) {
  Fixture fx(Lang::kZh);
  auto doc = ReportToJson(fx.report);
  EXPECT_EQ(doc["lang"], "zh");
  EXPECT_EQ(doc["findings"][0]["title"], "GPU 1 温度过高");
  EXPECT_EQ(doc["findings"][0]["actions"][0]["text"], "检查风扇");
}

TEST(ReportText, ShowsVerdictGpusFindingsAndNotChecked) {
  Fixture fx(Lang::kEn);
  std::string text = ReportToText(fx.report, false);
  EXPECT_NE(text.find("Verdict: CRITICAL"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU 1  0000:19:00.0"), std::string::npos) << text;
  EXPECT_NE(text.find("[CRITICAL] GPU 1 is too hot  thermal.test"), std::string::npos) << text;
  EXPECT_NE(text.find("$ nvidia-smi -q -d TEMPERATURE"), std::string::npos) << text;
  EXPECT_NE(text.find("(kern.log:12)"), std::string::npos) << text;
  EXPECT_NE(text.find("Not checked (1)"), std::string::npos) << text;
  EXPECT_EQ(text.find("\033["), std::string::npos);  // no colour when not asked
  std::string zh = ReportToText(Fixture(Lang::kZh).report, false);
  EXPECT_NE(zh.find("结论: 严重"), std::string::npos) << zh;
}

TEST(ReportMarkdown, RendersTablesAndEscapesPipes) {
  Fixture fx(Lang::kEn);
  std::string md = ReportToMarkdown(fx.report);
  EXPECT_NE(md.find("**Verdict: CRITICAL**"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 | `0000:19:00.0` |"), std::string::npos) << md;
  EXPECT_NE(md.find("### CRITICAL — GPU 1 is too hot"), std::string::npos) << md;
  EXPECT_NE(md.find("   nvidia-smi -q -d TEMPERATURE"), std::string::npos) << md;
  EXPECT_NE(md.find("## Not checked (1)"), std::string::npos) << md;
}

TEST(ReportText, GroupsRulesNotCheckedForTheSameReason) {
  std::vector<NotChecked> items = {
      {"a.one", Text{"no GPU readings", "没有 GPU 读数"}},
      {"b.two", Text{"no kernel log", "没有内核日志"}},
      {"c.three", Text{"no GPU readings", "没有 GPU 读数"}},
  };
  auto groups = GroupNotChecked(items, Lang::kEn);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].reason, "no GPU readings");
  EXPECT_EQ(groups[0].rules, (std::vector<std::string>{"a.one", "c.three"}));
  EXPECT_EQ(groups[1].rules, (std::vector<std::string>{"b.two"}));
  EXPECT_EQ(GroupNotChecked(items, Lang::kZh)[0].reason, "没有 GPU 读数");
}

}  // namespace report_render_unit_local
}  // namespace gpudoctor::testing
