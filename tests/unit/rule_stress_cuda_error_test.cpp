#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(StressCudaErrorRule, LaunchFailureOnAPresentGpuIsCritical) {
  auto input = StressInput({{HealthyGpu(0)}, {HealthyGpu(0)}});
  auto& gpu = input.active->gpus[0];
  gpu.cuda_error = "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)";
  gpu.cuda_error_test = "memory";
  gpu.cuda_error_at_s = 3.25;
  auto d = RunRule(kStressCudaErrorRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "stress.cuda_error");
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].title.en.find("CUDA failed in the memory test: cuLaunchKernel"), std::string::npos);
  EXPECT_EQ(d.findings[0].evidence[0].value, 3.25);
}

TEST(StressCudaErrorRule, SetupFailureIsAWarning) {
  auto input = StressInput({{HealthyGpu(0)}});
  input.active->gpus[0].cuda_error = "cuModuleLoadData: CUDA_ERROR_INVALID_PTX";
  input.active->gpus[0].cuda_error_test = "setup";
  auto d = RunRule(kStressCudaErrorRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(StressCudaErrorRule, ALostGpuIsLeftToGpuLost) {
  auto input = StressInput({{HealthyGpu(0)}, {StressLostGpu(0)}});
  input.active->gpus[0].cuda_error = "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED";
  input.active->gpus[0].cuda_error_test = "power";
  EXPECT_TRUE(RunRule(kStressCudaErrorRule, input).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
