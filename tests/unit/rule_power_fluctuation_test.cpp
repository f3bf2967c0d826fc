#include <gtest/gtest.h>

#include "parse/nvsmi_table.h"
#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

// One GPU whose power draw follows `draws_w`, one reading each.
DiagnosisInput WithDraws(const std::vector<double>& draws_w, GpuStatus base = HealthyGpu(0)) {
  std::vector<std::vector<GpuStatus>> readings;
  for (double w : draws_w) {
    GpuStatus g = base;
    g.power_draw_w = w;
    readings.push_back({g});
  }
  return InputFromReadings(readings);
}

TEST(PowerFluctuationRule, SwingingDrawIsAWarning) {
  auto d =
      RunRule(kPowerFluctuationRule, WithDraws({200, 650, 210, 640, 190, 660, 200, 650, 220, 640}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "power.fluctuation");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].value, 470);  // peak to peak, watts
  EXPECT_EQ(f.evidence[0].unit, "watts");
}

TEST(PowerFluctuationRule, AJobStartingIsAStepNotAFluctuation) {
  auto d = RunRule(kPowerFluctuationRule, WithDraws({90, 90, 90, 90, 90, 650, 650, 650, 650, 650}));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PowerFluctuationRule, OrdinaryNoiseIsQuiet) {
  auto d =
      RunRule(kPowerFluctuationRule, WithDraws({400, 410, 390, 405, 395, 400, 415, 385, 400, 402}));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PowerFluctuationRule, TooFewReadingsAreNotJudged) {
  auto d = RunRule(kPowerFluctuationRule, WithDraws({200, 650, 200, 650}));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PowerFluctuationRule, AnIdleGpuIsNotJudged) {
  GpuStatus idle = HealthyGpu(0);
  idle.utilization_gpu_percent = 0;
  idle.processes = std::vector<GpuProcess>{};
  idle.memory_used_bytes = 0;
  auto d = RunRule(kPowerFluctuationRule,
                   WithDraws({200, 650, 210, 640, 190, 660, 200, 650, 220, 640}, idle));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PowerFluctuationRule, MissingDrawOrLimitIsQuiet) {
  GpuStatus no_limit = HealthyGpu(0);
  no_limit.power_limit_w.reset();
  no_limit.power_enforced_limit_w.reset();
  auto d =
      RunRule(kPowerFluctuationRule, WithDraws({200, 650, 210, 640, 190, 660, 200, 650}, no_limit));
  EXPECT_TRUE(d.findings.empty());
}

// The table rows of Azure/azhpc-diagnostics issue #77 (a V100 whose power
// column shows ERR!): main reported nothing about it.
constexpr const char* kPowerErrTable =
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
    "|-------------------------------+----------------------+----------------------+\n"
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
    "|                               |                      |               MIG M. |\n"
    "|===============================+======================+======================|\n"
    "|   1  Tesla V100-PCIE...  On   | 00008ED0:00:00.0 Off |                    0 |\n"
    "| N/A   29C    P0   ERR! / 250W |    593MiB / 16160MiB |      0%      Default |\n"
    "|                               |                      |                  N/A |\n"
    "+-------------------------------+----------------------+----------------------+\n";

TEST(PowerFluctuationRule, ErrInThePowerColumnIsAPowerReadingFinding) {
  auto s = ParseNvidiaSmiTable(kPowerErrTable, "azhpc-77.txt");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->gpus.size(), 1u);
  EXPECT_FALSE(s->gpus[0].power_draw_w);
  auto d = RunRule(kPowerFluctuationRule, InputFromReadings({s->gpus}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);  // once: often transient
  EXPECT_NE(d.findings[0].title.en.find("power draw could not be read"), std::string::npos);
  // The same failure in every one of several readings is a warning.
  auto many = RunRule(kPowerFluctuationRule, InputFromReadings({s->gpus, s->gpus, s->gpus}));
  ASSERT_EQ(many.findings.size(), 1u);
  EXPECT_EQ(many.findings[0].severity, Severity::kWarning);
}

TEST(PowerFluctuationRule, AGpuInErrorEverywhereIsNotAPowerProblem) {
  GpuStatus g = HealthyGpu(0);
  g.power_draw_w.reset();
  for (const char* field : {"power_draw_w", "power_limit_w", "temperature_c", "fan_speed_percent",
                            "utilization_gpu_percent", "pstate"}) {
    g.field_errors[field] = std::string(kTableErrCell);
  }
  EXPECT_TRUE(RunRule(kPowerFluctuationRule, InputFromReadings({{g}})).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
