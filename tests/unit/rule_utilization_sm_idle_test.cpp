#include <gtest/gtest.h>

#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"
#include "support/zh_check.h"

namespace gpudoctor::testing {
namespace {

GpuStatus SmIdleGpu(std::int64_t utilization, std::optional<double> sm_activity) {
  GpuStatus g = HealthyGpu(0);
  g.name = "NVIDIA H100 80GB HBM3";
  g.gpm_supported = true;
  g.utilization_gpu_percent = utilization;
  g.gpm_sm_activity_percent = sm_activity;
  g.gpm_sm_occupancy_percent = sm_activity ? std::optional<double>(*sm_activity / 2) : std::nullopt;
  return g;
}

TEST(SmIdleRule, BusyByTimeWithFewSmsActiveIsAWarning) {
  auto d = RunRule(kSmIdleRule, RepeatedReadings({SmIdleGpu(97, 18.5)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "utilization.sm_idle");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].value, 18.5);
  EXPECT_NE(f.evidence[0].text.en.find("SM activity (GPM) avg 18.5 %"), std::string::npos)
      << f.evidence[0].text.en;
  std::string actions;
  for (const auto& a : f.actions) actions += a.text.en + "\n";
  for (const char* advice : {"larger batch", "CUDA graph", "Synchronise with the host less",
                             "asynchronously on CUDA streams", "data loader"}) {
    EXPECT_NE(actions.find(advice), std::string::npos) << advice;
  }
  EXPECT_TRUE(ChineseTextProblems(f).empty());
}

TEST(SmIdleRule, QuietWhenSmsAreBusyOrUtilisationLowOrNoGpm) {
  GpuStatus busy = SmIdleGpu(97, 85);
  GpuStatus light = SmIdleGpu(40, 10);
  light.index = 1;
  light.pci_bus_id = "0000:02:00.0";
  GpuStatus no_gpm = SmIdleGpu(97, std::nullopt);
  no_gpm.index = 2;
  no_gpm.pci_bus_id = "0000:03:00.0";
  auto d = RunRule(kSmIdleRule, RepeatedReadings({busy, light, no_gpm}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(SmIdleRule, QuietWhenOnlyAFewReadingsShowIt) {
  std::vector<std::vector<GpuStatus>> readings;
  for (int i = 0; i < 10; ++i) readings.push_back({SmIdleGpu(97, i < 3 ? 10 : 80)});
  EXPECT_TRUE(RunRule(kSmIdleRule, InputFromReadings(readings)).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
