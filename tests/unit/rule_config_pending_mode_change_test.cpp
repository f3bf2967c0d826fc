#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(ConfigPendingModeChangeRule, MigPendingIsAWarning) {
  GpuStatus g = HealthyGpu(5);
  g.mig_mode_enabled = false;
  g.mig_mode_pending = true;
  auto d = RunRule(kConfigPendingModeChangeRule, RepeatedReadings({HealthyGpu(0), g}, 2));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "config.pending_mode_change");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{g.pci_bus_id});
  EXPECT_EQ(f.evidence[0].text.en, "MIG mode disabled now, enabled after reset");
  EXPECT_EQ(f.actions[0].command, "sudo nvidia-smi -r -i 5");
}

TEST(ConfigPendingModeChangeRule, EccPendingIsInfo) {
  GpuStatus g = HealthyGpu(0);
  g.ecc_mode_enabled = true;
  g.ecc_mode_pending = false;
  auto d = RunRule(kConfigPendingModeChangeRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_NE(d.findings[0].title.en.find("ECC"), std::string::npos);
}

TEST(ConfigPendingModeChangeRule, QuietWhenPendingEqualsCurrentOrUnknown) {
  GpuStatus unknown = HealthyGpu(1);
  unknown.mig_mode_pending.reset();
  unknown.ecc_mode_enabled = false;
  unknown.ecc_mode_pending.reset();
  auto d = RunRule(kConfigPendingModeChangeRule, RepeatedReadings({HealthyGpu(0), unknown}, 3));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
