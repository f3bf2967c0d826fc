#include <gtest/gtest.h>

#include <stdexcept>

#include "rules/engine/engine.h"
#include "support/rule_testing.h"
#include "support/zh_check.h"

namespace gpudoctor::testing {
namespace {

void AddWarning(const DiagnosisInput& input, RuleOutput& out) {
  Finding& f = out.Add(Severity::kWarning);
  f.gpus.push_back(input.gpus.at(1).key);
  f.title = Text{"warned", "警告"};
}
void AddCritical(const DiagnosisInput& input, RuleOutput& out) {
  Finding& f = out.Add(Severity::kCritical);
  f.gpus.push_back(input.gpus.at(0).key);
  f.xids = {79, 13, 79};
}
void AddInfo(const DiagnosisInput&, RuleOutput& out) { out.Add(Severity::kInfo); }
void Throws(const DiagnosisInput&, RuleOutput&) { throw std::runtime_error("boom"); }

const Rule kWarn{"test.warn", "test", "warns about GPU 1", kNeedsGpuReadings, AddWarning};
const Rule kCrit{"test.crit", "test", "critical on GPU 0", kNeedsGpuReadings, AddCritical};
const Rule kInfoRule{"test.info", "test", "host-wide info", kNeedsNothing, AddInfo};
const Rule kNeedsLog{"test.log", "test", "needs the kernel log", kNeedsKernelLog, AddInfo};
const Rule kThrows{"test.throws", "test", "throws", kNeedsNothing, Throws};

TEST(Engine, OrdersFindingsBySeverityThenRuleOrder) {
  auto input = RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 3);
  auto d = Diagnose(input, {&kInfoRule, &kWarn, &kCrit});
  ASSERT_EQ(d.findings.size(), 3u);
  EXPECT_EQ(d.findings[0].id, "test.crit");
  EXPECT_EQ(d.findings[1].id, "test.warn");
  EXPECT_EQ(d.findings[2].id, "test.info");
  EXPECT_EQ(d.verdict, Severity::kCritical);
  EXPECT_EQ(d.findings[0].xids, (std::vector<int>{13, 79}));  // sorted, unique
}

TEST(Engine, GivesEachGpuTheWorstOfItsFindings) {
  auto input = RepeatedReadings({HealthyGpu(0), HealthyGpu(1), HealthyGpu(2)}, 2);
  auto d = Diagnose(input, {&kWarn, &kCrit, &kInfoRule});
  ASSERT_EQ(d.gpus.size(), 3u);
  EXPECT_EQ(d.gpus[0].verdict, Severity::kCritical);
  EXPECT_EQ(d.gpus[0].finding_ids, (std::vector<std::string>{"test.crit"}));
  EXPECT_EQ(d.gpus[1].verdict, Severity::kWarning);
  EXPECT_EQ(d.gpus[2].verdict, Severity::kOk);  // host-wide info names no GPU
}

TEST(Engine, ListsRulesWhoseEvidenceIsMissing) {
  DiagnosisInput input;  // offline, nothing at all
  auto d = Diagnose(input, {&kWarn, &kNeedsLog, &kInfoRule});
  ASSERT_EQ(d.not_checked.size(), 2u);
  EXPECT_EQ(d.not_checked[0].rule, "test.warn");
  EXPECT_NE(d.not_checked[0].reason.en.find("no GPU readings"), std::string::npos);
  EXPECT_EQ(d.not_checked[1].rule, "test.log");
  EXPECT_NE(d.not_checked[1].reason.en.find("kernel log"), std::string::npos);
  for (const auto& n : d.not_checked) EXPECT_TRUE(ChineseTextProblems(n).empty());
  EXPECT_EQ(d.rules_run, (std::vector<std::string>{"test.info"}));
  // A report from the store (every sample damaged, or events only) says so.
  input.recorded = true;
  auto r = Diagnose(input, {&kWarn});
  ASSERT_EQ(r.not_checked.size(), 1u);
  EXPECT_EQ(r.not_checked[0].reason.en, "no GPU samples could be read from the store for this window");
  EXPECT_TRUE(ChineseTextProblems(r.not_checked[0]).empty());
}

TEST(Engine, KernelLogThatCouldNotBeReadIsNamedWithItsReason) {
  DiagnosisInput input;
  input.live = true;
  input.kernel = KernelFacts{};
  input.kernel->sources.push_back(SourceStatus{"/dev/kmsg", false, "permission denied"});
  auto d = Diagnose(input, {&kNeedsLog});
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_NE(d.not_checked[0].reason.en.find("/dev/kmsg: permission denied"), std::string::npos);
}

TEST(Engine, ARuleThatThrowsIsReportedNotFatal) {
  auto d = Diagnose(DiagnosisInput{}, {&kThrows, &kInfoRule});
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "test.throws");
  EXPECT_NE(d.not_checked[0].reason.en.find("boom"), std::string::npos);
  EXPECT_EQ(d.findings.size(), 1u);
}

TEST(Engine, ExitCodesFollowTheVerdict) {
  EXPECT_EQ(ExitCodeFor(Severity::kOk), 0);
  EXPECT_EQ(ExitCodeFor(Severity::kInfo), 0);
  EXPECT_EQ(ExitCodeFor(Severity::kWarning), 1);
  EXPECT_EQ(ExitCodeFor(Severity::kCritical), 2);
}

TEST(ZhCheck, FindsEnglishLeftInChinese) {
  EXPECT_TRUE(EnglishRuns("GPU 温度过高，请检查风扇").empty());
  EXPECT_TRUE(EnglishRuns("运行 `nvidia-smi -pm 1` 开启持久模式").empty());
  EXPECT_TRUE(EnglishRuns("PCIe 链路降为 x8，NVLink 错误").empty());
  EXPECT_EQ(EnglishRuns("温度 too hot 了"), (std::vector<std::string>{"too hot"}));
  EXPECT_FALSE(HasCjk("only English here"));
  EXPECT_TRUE(HasCjk("中文"));
}

TEST(Lang, ParsesNamesAndLocales) {
  EXPECT_EQ(ParseLang("zh"), Lang::kZh);
  EXPECT_EQ(ParseLang("zh_CN.UTF-8"), Lang::kZh);
  EXPECT_EQ(ParseLang("en_US.UTF-8"), Lang::kEn);
  EXPECT_FALSE(ParseLang("fr").has_value());
}

}  // namespace
}  // namespace gpudoctor::testing
