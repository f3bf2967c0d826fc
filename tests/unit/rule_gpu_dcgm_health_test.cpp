#include <gtest/gtest.h>

#include "knowledge/dcgm_health_watch.h"
#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

std::uint32_t WatchBit(std::string_view watch) { return 1u << DcgmHealthWatchIndex(watch); }

TEST(GpuDcgmHealthRule, AFailingWatchIsCriticalAndNamesIt) {
  GpuStatus g = HealthyGpu(2);
  g.dcgm_health_fail_watches = WatchBit("MEM");
  g.dcgm_health_warn_watches = WatchBit("PCIE") | WatchBit("MEM");
  auto d = RunRule(kGpuDcgmHealthRule, RepeatedReadings({HealthyGpu(0), g}, 3));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "gpu.dcgm_health");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{g.pci_bus_id});
  EXPECT_NE(f.title.en.find("fails"), std::string::npos) << f.title.en;
  EXPECT_NE(f.title.en.find("MEM"), std::string::npos) << f.title.en;
  // A watch that fails is not also listed as warning.
  EXPECT_NE(f.evidence[0].text.en.find("failing MEM; warning PCIE"), std::string::npos)
      << f.evidence[0].text.en;
}

TEST(GpuDcgmHealthRule, WarningsAloneAreAWarningAndPassingIsNothing) {
  GpuStatus g = HealthyGpu(0);
  g.dcgm_health_warn_watches = WatchBit("THERMAL");
  auto d = RunRule(kGpuDcgmHealthRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  // Readings from NVML never carry DCGM's health: no finding.
  EXPECT_TRUE(RunRule(kGpuDcgmHealthRule, RepeatedReadings({HealthyGpu(0)}, 3)).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
