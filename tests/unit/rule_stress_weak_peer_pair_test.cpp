#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

DiagnosisInput WithPairs(const std::vector<double>& rates) {
  auto input = StressInput({{HealthyGpu(0), HealthyGpu(1), HealthyGpu(2)}});
  std::size_t k = 0;
  for (unsigned src = 0; src < 3; ++src) {
    for (unsigned dst = 0; dst < 3; ++dst) {
      if (src == dst || k >= rates.size()) continue;
      input.active->p2p.push_back(ActivePeerCopy{src, dst, HealthyGpu(src).pci_bus_id, HealthyGpu(dst).pci_bus_id,
                                                 true, rates[k++], std::nullopt});
    }
  }
  return input;
}

TEST(StressWeakPeerPairRule, OnePairFarBelowTheOthers) {
  // 0→1, 0→2, 1→0, 1→2, 2→0, 2→1: 0→2 at a sixth of the others.
  auto d = RunRule(kStressWeakPeerPairRule, WithPairs({300, 50, 310, 305, 295, 300}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.weak_peer_pair");
  EXPECT_EQ(f.gpus, (std::vector<std::string>{HealthyGpu(0).pci_bus_id, HealthyGpu(2).pci_bus_id}));
  // The median of the six is 300.
  EXPECT_NE(f.title.en.find("GPU 0 → GPU 2 copies at 17 % of the node's median pair"), std::string::npos)
      << f.title.en;
  EXPECT_NE(f.evidence[0].text.en.find("(peer access)"), std::string::npos);
}

TEST(StressWeakPeerPairRule, EvenPairsAreQuiet) {
  EXPECT_TRUE(RunRule(kStressWeakPeerPairRule, WithPairs({300, 280, 310, 305, 295, 300})).findings.empty());
  EXPECT_TRUE(RunRule(kStressWeakPeerPairRule, WithPairs({300})).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
