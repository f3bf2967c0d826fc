#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus WithAppClocks(unsigned index, std::int64_t graphics_mhz, std::int64_t memory_mhz) {
  GpuStatus g = HealthyGpu(index);
  g.clocks_applications_graphics_mhz = graphics_mhz;
  g.clocks_applications_memory_mhz = memory_mhz;
  g.clocks_default_applications_graphics_mhz = 1755;
  g.clocks_default_applications_memory_mhz = 2619;
  return g;
}

TEST(ConfigApplicationClocksRule, LowAppClocksOnABusyGpuAreAWarning) {
  GpuStatus g = WithAppClocks(3, 1005, 2619);
  auto d = RunRule(kConfigApplicationClocksRule, RepeatedReadings({WithAppClocks(0, 1755, 2619), g}, 5));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "config.application_clocks");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{g.pci_bus_id});
  EXPECT_EQ(f.evidence[0].value, 1005.0);
  EXPECT_EQ(f.actions[0].command, "sudo nvidia-smi -i 3 -rac");
}

TEST(ConfigApplicationClocksRule, LowMemoryClockOnAnIdleGpuIsInfo) {
  GpuStatus g = WithAppClocks(0, 1755, 1593);
  g.utilization_gpu_percent = 0;
  auto d = RunRule(kConfigApplicationClocksRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].evidence[0].value, 1593.0);
}

TEST(ConfigApplicationClocksRule, QuietAtDefaultsOrWhenDeprecated) {
  GpuStatus deprecated = HealthyGpu(1);  // newer drivers report no application clocks
  auto d = RunRule(kConfigApplicationClocksRule, RepeatedReadings({WithAppClocks(0, 1755, 2619), deprecated}, 3));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
