#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

DiagnosisInput WithDuplex(double h2d, double d2h, double both) {
  auto input = StressInput({{HealthyGpu(0)}});
  ActiveGpuResult& g = input.active->gpus[0];
  g.pcie_h2d_gbps = h2d;
  g.pcie_d2h_gbps = d2h;
  g.pcie_bidir_gbps = both;
  return input;
}

TEST(StressPcieHalfDuplexRule, BothDirectionsNoFasterThanOne) {
  auto d = RunRule(kStressPcieHalfDuplexRule, WithDuplex(24, 25, 26));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.pcie_half_duplex");
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  // 26 / 25 = 1.04.
  EXPECT_NE(f.title.en.find("reach only 1.04 x one direction"), std::string::npos) << f.title.en;
  EXPECT_NE(f.evidence[0].text.en.find("both directions 26 GB/s together"), std::string::npos)
      << f.evidence[0].text.en;
}

TEST(StressPcieHalfDuplexRule, OverlappingDirectionsAreQuiet) {
  EXPECT_TRUE(RunRule(kStressPcieHalfDuplexRule, WithDuplex(24, 25, 45)).findings.empty());
  EXPECT_TRUE(RunRule(kStressPcieHalfDuplexRule, WithDuplex(24, 25, 30.5)).findings.empty());
  // 28 GB/s is 1.12 x: no faster than one direction would be 25 within noise.
  EXPECT_TRUE(RunRule(kStressPcieHalfDuplexRule, WithDuplex(24, 25, 28)).findings.empty());
  auto no_bidir = WithDuplex(24, 25, 0);
  no_bidir.active->gpus[0].pcie_bidir_gbps.reset();
  EXPECT_TRUE(RunRule(kStressPcieHalfDuplexRule, no_bidir).findings.empty());
}

TEST(StressPcieHalfDuplexRule, ALinkSlowOneWayIsNotHalfDuplex) {
  // Host to device 10 GB/s, device to host 50: both at once 52 is 1.04 x the
  // faster, but the slow direction could add at most 10; the link is slow one
  // way (stress.pcie_below_link), not half duplex.
  EXPECT_TRUE(RunRule(kStressPcieHalfDuplexRule, WithDuplex(10, 50, 52)).findings.empty());
  // Alike directions that do not overlap are.
  EXPECT_EQ(RunRule(kStressPcieHalfDuplexRule, WithDuplex(30, 50, 52)).findings.size(), 1u);
}

}  // namespace
}  // namespace gpudoctor::testing
