#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

// Two NVLink 2.0 links between GPU 0 and GPU 1 (25 GB/s each a direction),
// `active` of them up; one copy 0 → 1 at `gbps`.
DiagnosisInput NvLinkPair(double gbps, int active) {
  auto input = StressInput({{HealthyGpu(0), HealthyGpu(1)}});
  PeerExpectation e;
  e.path = "nvlink";
  e.links = 2;
  e.links_active = active;
  e.link_name = "NVLink 2.0";
  e.link_gbps = 25;
  e.theoretical_gbps = 50;
  e.achievable_share = 0.8;
  e.source = "NVIDIA Tesla V100 datasheet";
  input.active->p2p.push_back(
      ActivePeerCopy{0, 1, HealthyGpu(0).pci_bus_id, HealthyGpu(1).pci_bus_id, true, gbps, e});
  return input;
}

TEST(StressPeerPairBelowLinksRule, APairFarBelowLinksTimesRate) {
  auto d = RunRule(kStressPeerPairBelowLinksRule, NvLinkPair(20, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.peer_pair_below_links");
  EXPECT_EQ(f.gpus, (std::vector<std::string>{HealthyGpu(0).pci_bus_id, HealthyGpu(1).pci_bus_id}));
  EXPECT_NE(f.title.en.find("GPU 0 → GPU 1 copies at 40 % of what its NVLink links should carry"),
            std::string::npos)
      << f.title.en;
  ASSERT_EQ(f.evidence.size(), 3u);
  EXPECT_NE(f.evidence[1].text.en.find("2 NVLink 2.0 links between the two x 25 GB/s = 50 GB/s"),
            std::string::npos)
      << f.evidence[1].text.en;
  EXPECT_NE(f.evidence[2].text.en.find("only 1 of those 2 links are active"), std::string::npos);
}

TEST(StressPeerPairBelowLinksRule, APairNearItsLinksIsQuiet) {
  EXPECT_TRUE(RunRule(kStressPeerPairBelowLinksRule, NvLinkPair(42, 2)).findings.empty());
  // Just above 60 % of 50 GB/s.
  EXPECT_TRUE(RunRule(kStressPeerPairBelowLinksRule, NvLinkPair(30.5, 2)).findings.empty());
}

TEST(StressPeerPairBelowLinksRule, WithoutAnExpectationNothingIsJudged) {
  auto input = NvLinkPair(1, 2);
  input.active->p2p[0].expected.reset();
  EXPECT_TRUE(RunRule(kStressPeerPairBelowLinksRule, input).findings.empty());
}

TEST(StressPeerPairBelowLinksRule, APcieStagedPairIsHeldToHalfTheLink) {
  auto input = NvLinkPair(5, 0);
  PeerExpectation& e = *input.active->p2p[0].expected;
  e = PeerExpectation{"pcie", 0, 0, "PCIe Gen4 x16", 31.5, 15.75, 0.8, "PCI-SIG"};
  input.active->p2p[0].peer_access = false;
  auto d = RunRule(kStressPeerPairBelowLinksRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].title.en.find("of what its PCIe link should carry"), std::string::npos);
  EXPECT_NE(d.findings[0].evidence[1].text.en.find("PCIe Gen4 x16 carries 31.5 GB/s a direction, 15.8 GB/s "
                                                   "staged through host memory"),
            std::string::npos)
      << d.findings[0].evidence[1].text.en;
}

}  // namespace
}  // namespace gpudoctor::testing
