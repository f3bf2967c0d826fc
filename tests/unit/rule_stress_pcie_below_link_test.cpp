#include <gtest/gtest.h>

#include "knowledge/pcie_link_rates.h"
#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

DiagnosisInput WithPcie(double h2d, double d2h, std::int64_t gen, std::int64_t width, std::int64_t max_gen) {
  auto input = StressInput({{HealthyGpu(0)}});
  ActiveGpuResult& g = input.active->gpus[0];
  g.pcie_h2d_gbps = h2d;
  g.pcie_d2h_gbps = d2h;
  g.pcie_link_gen = gen;
  g.pcie_link_width = width;
  g.pcie_link_gen_max = max_gen;
  g.pcie_link_width_max = 16;
  return input;
}

TEST(StressPcieBelowLinkRule, SlowCopiesOnATrainedDownLink) {
  // Gen4 x16 carries 31.5 GB/s a direction; 9 GB/s is 29 % of it.
  auto d = RunRule(kStressPcieBelowLinkRule, WithPcie(25, 9, 4, 16, 5));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.pcie_below_link");
  EXPECT_EQ(f.severity, Severity::kWarning);
  // Host to device runs at 79 % of the link: slow one way.
  EXPECT_NE(f.title.en.find("PCIe device-to-host copies reach only 29 % of its Gen4 x16 link (host to device 79 %): "
                            "slow one way"),
            std::string::npos)
      << f.title.en;
  ASSERT_EQ(f.evidence.size(), 3u);
  EXPECT_NE(f.evidence[1].text.en.find("31.5 GB/s a direction in theory; a healthy link gives about 80 %"),
            std::string::npos)
      << f.evidence[1].text.en;
  EXPECT_NE(f.evidence[2].text.en.find("trained at Gen4 x16 of Gen5 x16"), std::string::npos);
}

TEST(StressPcieBelowLinkRule, BothDirectionsSlowIsTheLink) {
  auto d = RunRule(kStressPcieBelowLinkRule, WithPcie(9, 9, 4, 16, 4));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].title.en.find("PCIe copies reach only 29 % of its Gen4 x16 link"), std::string::npos)
      << d.findings[0].title.en;
  EXPECT_EQ(d.findings[0].title.en.find("one way"), std::string::npos) << d.findings[0].title.en;
}

TEST(StressPcieBelowLinkRule, HealthyLinkIsQuiet) {
  // Gen5 x16: 63 GB/s in theory; 52 GB/s is 83 %.
  EXPECT_TRUE(RunRule(kStressPcieBelowLinkRule, WithPcie(52, 53, 5, 16, 5)).findings.empty());
  // Without the link's generation there is nothing to compare with.
  auto unknown = WithPcie(5, 5, 5, 16, 5);
  unknown.active->gpus[0].pcie_link_gen.reset();
  EXPECT_TRUE(RunRule(kStressPcieBelowLinkRule, unknown).findings.empty());
}

TEST(PcieLinkRates, PerLaneAfterEncoding) {
  EXPECT_DOUBLE_EQ(*PcieLaneGbps(1), 0.25);
  EXPECT_NEAR(*PcieLaneGbps(3) * 16, 15.75, 0.01);
  EXPECT_NEAR(*PcieLaneGbps(5) * 16, 63.0, 0.02);
  EXPECT_FALSE(PcieLaneGbps(0));
  EXPECT_FALSE(PcieLaneGbps(7));
}

}  // namespace
}  // namespace gpudoctor::testing
