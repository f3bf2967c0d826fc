#include <gtest/gtest.h>

#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"
#include "support/zh_check.h"

namespace gpudoctor::testing {
namespace {

GpuProcess Competitor(std::uint32_t pid, const char* name, std::optional<std::int64_t> sm) {
  GpuProcess p(pid, name, 8LL << 30);
  p.sm_util_percent = sm;
  p.memory_util_percent = sm ? std::optional<std::int64_t>(*sm / 2) : std::nullopt;
  return p;
}

GpuStatus SharedGpu(std::vector<GpuProcess> processes) {
  GpuStatus g = HealthyGpu(0);
  g.processes = std::move(processes);
  return g;
}

TEST(ProcessesCompetingRule, TwoBusyProcessesAreNamedWithTheirShares) {
  GpuProcess train = Competitor(4242, "python3", 55);
  train.user = "alice";
  train.pod_uid = "1b2c3d4e-0000-4000-8000-000000000001";
  GpuProcess forgotten = Competitor(5151, "jupyter-kernel", 35);
  forgotten.user = "bob";
  GpuProcess idle = Competitor(6000, "idle", 0);
  auto d = RunRule(kProcessesCompetingRule,
                   RepeatedReadings({SharedGpu({train, forgotten, idle})}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "processes.competing");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.title.en.find("shared by 2 compute processes"), std::string::npos) << f.title.en;
  ASSERT_EQ(f.evidence.size(), 3u);
  EXPECT_EQ(f.evidence[1].text.en,
            "`python3` (pid 4242, 8 GiB, `alice`, pod `1b2c3d4e-0000-4000-8000-000000000001`): "
            "SM 55 % avg, 55 % max");
  EXPECT_EQ(f.evidence[1].value, 55);
  EXPECT_EQ(f.evidence[2].text.en, "`jupyter-kernel` (pid 5151, 8 GiB, `bob`): SM 35 % avg, 35 % max");
  EXPECT_TRUE(ChineseTextProblems(f).empty());
  std::string actions;
  for (const auto& a : f.actions) actions += a.text.en + a.command + "\n";
  EXPECT_NE(actions.find("nvidia-smi pmon"), std::string::npos);
  EXPECT_NE(actions.find("MPS"), std::string::npos);
}

TEST(ProcessesCompetingRule, QuietForOneBusyProcessBriefOverlapOrNoPerProcessFigures) {
  auto one = RunRule(kProcessesCompetingRule,
                     RepeatedReadings({SharedGpu({Competitor(1, "a", 90), Competitor(2, "b", 3)})}, 10));
  EXPECT_TRUE(one.findings.empty());
  std::vector<std::vector<GpuStatus>> readings;
  for (int i = 0; i < 10; ++i) {
    readings.push_back({SharedGpu({Competitor(1, "a", 60), Competitor(2, "b", i < 2 ? 40 : 0)})});
  }
  EXPECT_TRUE(RunRule(kProcessesCompetingRule, InputFromReadings(readings)).findings.empty());
  auto unknown = RunRule(kProcessesCompetingRule,
                         RepeatedReadings({SharedGpu({Competitor(1, "a", std::nullopt),
                                                      Competitor(2, "b", std::nullopt)})},
                                          10));
  EXPECT_TRUE(unknown.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
