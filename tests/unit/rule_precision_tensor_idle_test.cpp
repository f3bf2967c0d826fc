#include <gtest/gtest.h>

#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"
#include "support/zh_check.h"

namespace gpudoctor::testing {
namespace {

GpuStatus PipesGpu(std::optional<double> fp32, std::optional<double> tensor) {
  GpuStatus g = HealthyGpu(0);
  g.name = "NVIDIA H100 80GB HBM3";
  g.gpm_supported = true;
  g.gpm_sm_activity_percent = 70;
  g.gpm_fp32_activity_percent = fp32;
  g.gpm_tensor_activity_percent = tensor;
  return g;
}

TEST(TensorIdleRule, Fp32BusyWithIdleTensorPipesAdvisesMixedPrecision) {
  auto d = RunRule(kTensorIdleRule, RepeatedReadings({PipesGpu(55, 0.4)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "precision.tensor_idle");
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_NE(f.evidence[0].text.en.find("FP32 pipe (GPM) avg 55 %, tensor pipes avg 0.4 %"),
            std::string::npos)
      << f.evidence[0].text.en;
  std::string actions;
  for (const auto& a : f.actions) actions += a.text.en + "\n";
  EXPECT_NE(actions.find("mixed precision in BF16"), std::string::npos);
  EXPECT_NE(actions.find("TF32"), std::string::npos);
  EXPECT_TRUE(ChineseTextProblems(f).empty());
}

TEST(TensorIdleRule, QuietWithTensorWorkLightFp32OrNoGpm) {
  GpuStatus tensors = PipesGpu(55, 40);
  GpuStatus light = PipesGpu(10, 0);
  light.index = 1;
  light.pci_bus_id = "0000:02:00.0";
  GpuStatus no_gpm = PipesGpu(std::nullopt, std::nullopt);
  no_gpm.index = 2;
  no_gpm.pci_bus_id = "0000:03:00.0";
  auto d = RunRule(kTensorIdleRule, RepeatedReadings({tensors, light, no_gpm}, 10));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
