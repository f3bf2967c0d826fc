#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus InMode(unsigned index, const char* mode) {
  GpuStatus g = HealthyGpu(index);
  g.compute_mode = mode;
  return g;
}

TEST(ConfigComputeModeRule, ProhibitedIsAWarning) {
  GpuStatus g = InMode(2, "Prohibited");
  auto d = RunRule(kConfigComputeModeRule, RepeatedReadings({HealthyGpu(0), g}, 2));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "config.compute_mode");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{g.pci_bus_id});
  EXPECT_EQ(f.evidence[0].text.en, "compute mode Prohibited");
  EXPECT_EQ(f.actions[0].command, "sudo nvidia-smi -i 2 -c DEFAULT");
}

TEST(ConfigComputeModeRule, ExclusiveProcessIsInfo) {
  auto d = RunRule(kConfigComputeModeRule, RepeatedReadings({InMode(0, "Exclusive_Process")}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(ConfigComputeModeRule, QuietInDefaultOrUnknownMode) {
  GpuStatus unknown = HealthyGpu(1);
  unknown.compute_mode.reset();
  auto d = RunRule(kConfigComputeModeRule, RepeatedReadings({HealthyGpu(0), unknown}, 3));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
