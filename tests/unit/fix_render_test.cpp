// The fix plan and results in text (en, zh) and JSON (gpudoctor.fix/v1).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fix/plan_text.h"
#include "support/zh_check.h"

namespace gpudoctor {
namespace {

GpuStatus Gpu(bool busy) {
  GpuStatus g;
  g.index = 0;
  g.pci_bus_id = "0000:18:00.0";
  g.persistence_mode = false;
  g.power_limit_w = 250;
  g.power_default_limit_w = 300;
  g.compute_mode = "Prohibited";
  g.processes = std::vector<GpuProcess>{};
  if (busy) g.processes->push_back(GpuProcess{4242, "python3", std::nullopt});
  return g;
}

FixPlan Plan(bool busy) {
  auto on = [](const char* id) {
    Finding f;
    f.id = id;
    f.gpus = {"0000:18:00.0"};
    return f;
  };
  auto plan = BuildFixPlan(
      {on("config.persistence_mode"), on("config.power_limit"), on("config.compute_mode"),
       on("gpu.lost"), on("xid.gsp"), on("thermal.slowdown")},
      {Gpu(busy)}, PlanOptions{});
  EXPECT_TRUE(plan.ok());
  return *plan;
}

std::vector<StepResult> FailedAtPowerLimit(const FixPlan& plan) {
  std::vector<StepResult> r(plan.steps.size());
  r[0].outcome = StepOutcome::kApplied;
  r[0].after = "on";
  r[0].finding_gone = true;
  r[1].outcome = StepOutcome::kFailed;
  r[1].error = "nvmlDeviceSetPowerManagementLimit on GPU 0: Insufficient Permissions";
  r[2].outcome = StepOutcome::kNotRun;
  return r;
}

TEST(FixRender, EnglishPlanNamesCommandsRiskAndWhatIsLeftByHand) {
  FixPlan plan = Plan(false);
  std::string text = FixToText(FixView{&plan, nullptr, Lang::kEn, "", ""});
  for (const char* want :
       {"Fix plan (from a live diagnosis): 6 step(s), 3 by gpudoctor, 3 by hand",
        "GPU 0 (0000:18:00.0): turn persistence mode on", "command: nvidia-smi -i 0 -pm 1",
        "command: nvidia-smi -i 0 -pl 300", "persistence_mode off -> on",
        "finding: config.power_limit", "risk: high", "To do by hand", "command: nvidia-smi -r -i 0",
        "host: turn the GSP firmware off",
        "Findings no step addresses (see gpudoctor diagnose): thermal.slowdown",
        "gpudoctor fix --apply"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
}

TEST(FixRender, BusyGpuStepsShowWhyTheyWillBeSkipped) {
  FixPlan plan = Plan(true);
  std::string text = FixToText(FixView{&plan, nullptr, Lang::kEn, "report.json", ""});
  EXPECT_NE(text.find("from report.json"), std::string::npos) << text;
  EXPECT_NE(text.find("will be skipped: 1 compute process(es) on this GPU (4242 python3)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("gpudoctor fix --apply"), std::string::npos) << text;  // nothing to apply
}

TEST(FixRender, ResultsShowFailureAndStepsNotRun) {
  FixPlan plan = Plan(false);
  auto results = FailedAtPowerLimit(plan);
  std::string text =
      FixToText(FixView{&plan, &results, Lang::kEn, "", "/var/lib/gpudoctor/fix-audit.log"});
  EXPECT_NE(text.find("=> applied, now off -> on; finding config.persistence_mode gone"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("=> FAILED: nvmlDeviceSetPowerManagementLimit on GPU 0: Insufficient Permissions"),
      std::string::npos);
  EXPECT_NE(text.find("=> not run: an earlier step failed"), std::string::npos);
  EXPECT_NE(text.find("Result: 1 applied, 1 failed, 0 skipped, 1 not run, 3 by hand."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Audit log: /var/lib/gpudoctor/fix-audit.log"), std::string::npos);
}

TEST(FixRender, ChineseTextIsChinese) {
  for (bool busy : {false, true}) {
    FixPlan plan = Plan(busy);
    auto results = FailedAtPowerLimit(plan);
    const std::vector<StepResult>* applied = &results;
    for (const std::vector<StepResult>* r : {applied, static_cast<decltype(applied)>(nullptr)}) {
      std::string text =
          FixToText(FixView{&plan, r, Lang::kZh, busy ? "r.json" : "", "/tmp/a.log"});
      EXPECT_TRUE(testing::HasCjk(text));
      EXPECT_EQ(testing::EnglishRuns(text), std::vector<std::string>{}) << text;
      EXPECT_NE(text.find("修复计划"), std::string::npos);
      EXPECT_EQ(text.find("Fix plan"), std::string::npos);
    }
  }
}

TEST(FixRender, JsonHasTheSchemaStepsAndOutcomes) {
  FixPlan plan = Plan(true);
  auto results = FailedAtPowerLimit(plan);
  auto doc = nlohmann::json::parse(
      FixToJson(FixView{&plan, &results, Lang::kEn, "r.json", "/x/fix-audit.log"}));
  EXPECT_EQ(doc["schema"], "gpudoctor.fix/v1");
  EXPECT_EQ(doc["source"]["kind"], "report");
  EXPECT_EQ(doc["applied"], true);
  ASSERT_EQ(doc["steps"].size(), 6u);
  const auto& s = doc["steps"][1];
  EXPECT_EQ(s["action"], "power_limit");
  EXPECT_EQ(s["finding"], "config.power_limit");
  EXPECT_EQ(s["command"], "nvidia-smi -i 0 -pl 300");
  EXPECT_EQ(s["before"], "250 W");
  EXPECT_EQ(s["target"], "300 W");
  EXPECT_EQ(s["risk"], "low");
  EXPECT_EQ(s["safe_with_processes"], true);
  EXPECT_EQ(s["skipped"], true);
  EXPECT_EQ(s["processes"][0]["pid"], 4242);
  EXPECT_EQ(s["outcome"], "failed");
  EXPECT_EQ(doc["steps"][0]["finding_gone"], true);
  EXPECT_EQ(doc["steps"][3]["automatic"], false);
  EXPECT_EQ(doc["unaddressed"][0], "thermal.slowdown");
  EXPECT_EQ(doc["audit_log"], "/x/fix-audit.log");
}

}  // namespace
}  // namespace gpudoctor
