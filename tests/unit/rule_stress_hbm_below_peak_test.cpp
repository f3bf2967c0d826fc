#include <gtest/gtest.h>

#include "knowledge/hbm_peaks.h"
#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(StressHbmBelowPeakRule, FarBelowThePublishedPeak) {
  auto input = StressInput({{HealthyGpu(0)}});
  input.active->gpus[0].hbm_gbps = 1500;
  input.active->gpus[0].hbm_peak_gbps = 3350;
  input.active->gpus[0].hbm_peak_source = "NVIDIA H100 Tensor Core GPU datasheet";
  auto d = RunRule(kStressHbmBelowPeakRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "stress.hbm_below_peak");
  EXPECT_NE(d.findings[0].title.en.find("memory copy bandwidth only 45 % of the published peak"), std::string::npos)
      << d.findings[0].title.en;
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("copy kernel 1.5 TB/s against a published peak of 3.35 TB/s"), std::string::npos);
}

TEST(StressHbmBelowPeakRule, NearThePeakOrUnknownModelIsQuiet) {
  auto input = StressInput({{HealthyGpu(0), HealthyGpu(1)}});
  input.active->gpus[0].hbm_gbps = 2900;
  input.active->gpus[0].hbm_peak_gbps = 3350;
  input.active->gpus[1].hbm_gbps = 100;  // no published peak known
  EXPECT_TRUE(RunRule(kStressHbmBelowPeakRule, input).findings.empty());
}

TEST(HbmPeaks, MatchesNvmlNamesMostSpecificFirst) {
  EXPECT_EQ(FindHbmPeak("NVIDIA H100 80GB HBM3")->gbps, 3350);
  EXPECT_EQ(FindHbmPeak("NVIDIA H100 PCIe")->gbps, 2000);
  EXPECT_EQ(FindHbmPeak("NVIDIA H100 NVL")->gbps, 3900);
  EXPECT_EQ(FindHbmPeak("NVIDIA H200")->gbps, 4800);
  EXPECT_EQ(FindHbmPeak("NVIDIA A100-SXM4-80GB")->gbps, 2039);
  EXPECT_EQ(FindHbmPeak("NVIDIA A100-SXM4-40GB")->gbps, 1555);
  EXPECT_EQ(FindHbmPeak("NVIDIA L40S")->gbps, 864);
  EXPECT_EQ(FindHbmPeak("NVIDIA L4")->gbps, 300);
  EXPECT_FALSE(FindHbmPeak("Fake GPU"));
  EXPECT_FALSE(FindHbmPeak("NVIDIA GeForce RTX 4090"));
}

}  // namespace
}  // namespace gpudoctor::testing
