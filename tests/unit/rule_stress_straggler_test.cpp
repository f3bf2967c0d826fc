#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

DiagnosisInput FourGpus(std::vector<double> tflops) {
  auto input = StressInput({{HealthyGpu(0), HealthyGpu(1), HealthyGpu(2), HealthyGpu(3)}});
  for (std::size_t i = 0; i < tflops.size(); ++i) input.active->gpus[i].burn_tflops = tflops[i];
  return input;
}

TEST(StressStragglerRule, GpuMoreThanTenPercentBelowTheMedian) {
  auto d = RunRule(kStressStragglerRule, FourGpus({50, 51, 49, 40}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.straggler");
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(3).pci_bus_id});
  // Median of 40, 49, 50, 51 is 49.5: 40 is 19 % below.
  EXPECT_NE(f.title.en.find("FP32 burn rate is 19 % below"), std::string::npos) << f.title.en;
  EXPECT_EQ(f.evidence[0].value, 40.0);
}

TEST(StressStragglerRule, AGpuWhoseRunEndedInACudaErrorIsNotAStraggler) {
  // GPU 3 was lost 0.5 s into its load: its rate is of half a second.
  auto input = FourGpus({50, 51, 49, 12});
  input.active->gpus[3].cuda_error = "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure";
  EXPECT_TRUE(RunRule(kStressStragglerRule, input).findings.empty());
  // Nor is it a yardstick: with two GPUs left, the slower healthy one still is one.
  auto two = FourGpus({50, 40, 90, 12});
  two.active->gpus[2].cuda_error = "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access";
  two.active->gpus[3].cuda_error = "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure";
  auto d = RunRule(kStressStragglerRule, two);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].gpus, std::vector<std::string>{HealthyGpu(1).pci_bus_id});
}

TEST(StressStragglerRule, HbmBandwidthCountsToo) {
  auto input = FourGpus({});
  std::vector<double> gbps = {3000, 3010, 2990, 2000};
  for (std::size_t i = 0; i < 4; ++i) input.active->gpus[i].hbm_gbps = gbps[i];
  auto d = RunRule(kStressStragglerRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].title.en.find("HBM copy bandwidth"), std::string::npos);
}

TEST(StressStragglerRule, WithinTenPercentIsQuiet) {
  EXPECT_TRUE(RunRule(kStressStragglerRule, FourGpus({50, 51, 49, 46})).findings.empty());
  // One GPU alone has no peers to straggle behind.
  auto one = StressInput({{HealthyGpu(0)}});
  one.active->gpus[0].burn_tflops = 10;
  EXPECT_TRUE(RunRule(kStressStragglerRule, one).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
