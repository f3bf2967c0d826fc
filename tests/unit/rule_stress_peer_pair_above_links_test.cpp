#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

// Two NVLink 2.0 links counted between GPU 0 and GPU 1 (25 GB/s each a
// direction: 50 GB/s); one copy 0 → 1 at `gbps`.
DiagnosisInput CountedTwoLinks(double gbps) {
  auto input = StressInput({{HealthyGpu(0), HealthyGpu(1)}});
  PeerExpectation e;
  e.path = "nvlink";
  e.links = e.links_active = 2;
  e.link_name = "NVLink 2.0";
  e.link_gbps = 25;
  e.theoretical_gbps = 50;
  e.achievable_share = 0.8;
  e.source = "NVIDIA Tesla V100 datasheet";
  input.active->p2p.push_back(
      ActivePeerCopy{0, 1, HealthyGpu(0).pci_bus_id, HealthyGpu(1).pci_bus_id, true, gbps, e});
  return input;
}

TEST(StressPeerPairAboveLinksRule, ACopyFarAboveItsLinksQuestionsTheExpectation) {
  // 90 GB/s over links that carry 50: the pair has more links than counted.
  auto d = RunRule(kStressPeerPairAboveLinksRule, CountedTwoLinks(90));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.peer_pair_above_links");
  EXPECT_EQ(f.severity, Severity::kInfo);  // nothing is wrong with the GPUs; the check could not judge
  EXPECT_NE(f.title.en.find("GPU 0 → GPU 1 copies at 180 % of what its NVLink links can carry"), std::string::npos)
      << f.title.en;
  EXPECT_NE(f.title.en.find("the expected rate is wrong"), std::string::npos) << f.title.en;
  EXPECT_NE(f.evidence[0].text.en.find("90 GB/s measured against 50 GB/s in theory (2 NVLink 2.0 links x 25 GB/s"),
            std::string::npos)
      << f.evidence[0].text.en;
  EXPECT_NE(f.explanation.en.find("fewer active links"), std::string::npos);
  // The peer-pair findings fold into one per pair (FoldCauses).
  ASSERT_FALSE(f.causes.empty());
  EXPECT_EQ(f.causes[0], "p2p " + HealthyGpu(0).pci_bus_id + " " + HealthyGpu(1).pci_bus_id);
}

TEST(StressPeerPairAboveLinksRule, ACopyWithinItsLinksIsQuiet) {
  EXPECT_TRUE(RunRule(kStressPeerPairAboveLinksRule, CountedTwoLinks(42)).findings.empty());
  // 104 %: within what a rate rounded in a datasheet allows.
  EXPECT_TRUE(RunRule(kStressPeerPairAboveLinksRule, CountedTwoLinks(52)).findings.empty());
  auto unknown = CountedTwoLinks(90);
  unknown.active->p2p[0].expected.reset();
  EXPECT_TRUE(RunRule(kStressPeerPairAboveLinksRule, unknown).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
