#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(ConfigPersistenceModeRule, OneInfoFindingForAllGpusWithItOff) {
  GpuStatus a = HealthyGpu(0);
  GpuStatus b = HealthyGpu(2);
  a.persistence_mode = false;
  b.persistence_mode = false;
  auto d = RunRule(kConfigPersistenceModeRule, RepeatedReadings({a, HealthyGpu(1), b}, 3));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "config.persistence_mode");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.gpus, (std::vector<std::string>{a.pci_bus_id, b.pci_bus_id}));
  EXPECT_EQ(f.evidence[0].value, 2.0);
  ASSERT_EQ(f.actions.size(), 2u);
  EXPECT_EQ(f.actions[0].command, "sudo nvidia-smi -pm 1");
  EXPECT_EQ(f.actions[1].command, "sudo systemctl enable --now nvidia-persistenced");
}

TEST(ConfigPersistenceModeRule, QuietWhenOnOrNotReported) {
  GpuStatus windows = HealthyGpu(1);
  windows.persistence_mode.reset();
  auto d = RunRule(kConfigPersistenceModeRule, RepeatedReadings({HealthyGpu(0), windows}, 2));
  EXPECT_TRUE(d.findings.empty());
}

TEST(ConfigPersistenceModeRule, QuietOnAWindowsCapture) {
  auto input = InputFromTextFixture("gpuexporter-rtx2080super-windows-591.86-idle-q.txt");
  if (!input) GTEST_SKIP() << "shared fixtures missing";
  ASSERT_EQ(input->gpus.size(), 1u);
  EXPECT_FALSE(input->gpus[0].latest().persistence_mode.has_value());
  EXPECT_TRUE(RunRule(kConfigPersistenceModeRule, *input).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
