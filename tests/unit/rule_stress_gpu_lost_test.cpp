#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(StressGpuLostRule, LostUnderLoadIsCriticalWithSecondsIntoTheLoad) {
  auto input = StressInput({{HealthyGpu(0), HealthyGpu(1)},
                            {HealthyGpu(0), HealthyGpu(1)},
                            {HealthyGpu(0), StressLostGpu(1)}});
  input.active->gpus[1].cuda_error = "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)";
  input.active->gpus[1].cuda_error_test = "power";
  auto d = RunRule(kStressGpuLostRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.gpu_lost");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(1).pci_bus_id});
  EXPECT_NE(f.title.en.find("was lost 1.5 s into its load"), std::string::npos) << f.title.en;
  bool cuda = false;
  for (const auto& e : f.evidence) cuda = cuda || e.text.en.find("CUDA_ERROR_LAUNCH_FAILED") != std::string::npos;
  EXPECT_TRUE(cuda);
  EXPECT_NE(f.actions[1].command.find("--gpu 1"), std::string::npos);
}

TEST(StressGpuLostRule, XidUnderLoadFiresWithTheXid) {
  auto input = StressInput({{HealthyGpu(0)}, {HealthyGpu(0)}});
  input.active->gpus[0].xids.push_back(ActiveXid{1.2, 48});
  auto d = RunRule(kStressGpuLostRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].xids, std::vector<int>{48});
  EXPECT_NE(d.findings[0].title.en.find("reported Xid 48 under load"), std::string::npos);
}

TEST(StressGpuLostRule, HealthyRunIsQuiet) {
  auto input = StressInput({{HealthyGpu(0), HealthyGpu(1)}, {HealthyGpu(0), HealthyGpu(1)}});
  EXPECT_TRUE(RunRule(kStressGpuLostRule, input).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
