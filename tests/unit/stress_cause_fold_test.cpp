// One cause, one finding, in `gpudoctor stress`: what the stress rules find
// of one slow link, folded as stress_cmd.cpp folds it (FoldCauses, then
// FoldAcrossGpus), and the per-GPU verdicts that follow.
#include "rules/engine/cause_fold.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "rules/active/group.h"
#include "rules/engine/finding_fold.h"
#include "rules/engine/registry.h"
#include "unit/rule_events_testing.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {
namespace stress_cause_fold_test {

// Four GPUs on Gen4 x16 links (31.5 GB/s a direction); GPU 3's link moves
// `slow` GB/s each way, the two directions in turn; the others 25 GB/s
// each way and 45 together. Peer copies go through host memory (no peer
// access): 12 GB/s, and 2.5 GB/s for the pairs through GPU 3's link.
DiagnosisInput FourGpusOneSlowLink(double slow = 5) {
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 4; ++i) gpus.push_back(HealthyGpu(i));
  auto input = StressInput({gpus});
  input.active->tests = {"pcie", "p2p"};
  for (ActiveGpuResult& g : input.active->gpus) {
    const bool is_slow = g.index == 3;
    g.pcie_h2d_gbps = is_slow ? slow : 25;
    g.pcie_d2h_gbps = is_slow ? slow : 25;
    g.pcie_bidir_gbps = is_slow ? slow * 1.04 : 45;
    g.pcie_link_gen = g.pcie_link_gen_max = 4;
    g.pcie_link_width = g.pcie_link_width_max = 16;
  }
  PeerExpectation staged;
  staged.path = "pcie";
  staged.link_name = "PCIe Gen4 x16";
  staged.link_gbps = 31.5;
  staged.theoretical_gbps = 15.75;
  staged.achievable_share = 0.8;
  staged.source = "PCI-SIG";
  for (const GpuStatus& a : gpus) {
    for (const GpuStatus& b : gpus) {
      if (a.index == b.index) continue;
      const double gbps = a.index == 3 || b.index == 3 ? 2.5 : 12;
      input.active->p2p.push_back(ActivePeerCopy{a.index, b.index, a.pci_bus_id, b.pci_bus_id, false, gbps, staged});
    }
  }
  return input;
}

Diagnosis StressFolded(const DiagnosisInput& input) {
  Diagnosis d = Diagnose(input, ActiveRules());
  FoldCauses(d);
  FoldAcrossGpus(d, input);
  return d;
}

std::size_t Count(const Diagnosis& d, const std::string& id) {
  return static_cast<std::size_t>(
      std::count_if(d.findings.begin(), d.findings.end(), [&](const Finding& f) { return f.id == id; }));
}

TEST(StressCauseFold, OneSlowLinkIsOneFinding) {
  const auto input = FourGpusOneSlowLink();
  // Unfolded, the rules each see a symptom of the one link.
  const Diagnosis raw = Diagnose(input, ActiveRules());
  EXPECT_GE(Count(raw, "stress.straggler"), 2u);
  EXPECT_EQ(Count(raw, "stress.pcie_below_link"), 1u);
  EXPECT_EQ(Count(raw, "stress.pcie_half_duplex"), 1u);
  EXPECT_GE(Count(raw, "stress.weak_peer_pair"), 2u);

  const Diagnosis d = StressFolded(input);
  ASSERT_EQ(d.findings.size(), 1u) << d.findings.size() << " findings, the first " << d.findings[0].title.en;
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.pcie_below_link");
  EXPECT_EQ(f.severity, Severity::kWarning);
  // GPU 3's link; not its peers, whose copies only crossed it.
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(3).pci_bus_id});
  EXPECT_NE(f.title.en.find("PCIe copies reach only 16 % of its Gen4 x16 link"), std::string::npos) << f.title.en;
  std::string evidence;
  for (const EvidenceItem& e : f.evidence) evidence += e.text.en + "\n";
  EXPECT_NE(evidence.find("also: GPU 3 (" + HealthyGpu(3).pci_bus_id + ") is a straggler"), std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("both directions at once reach only"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("also: GPU 0 → GPU 3 copies"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("also: GPU 3 → GPU 0 copies"), std::string::npos) << evidence;
  ExpectBilingual(d);

  // The per-GPU verdicts agree with the finding: GPU 3 warns with it, the
  // others are fine, and no verdict names a finding that was folded away.
  ASSERT_EQ(d.gpus.size(), 4u);
  for (const GpuVerdict& v : d.gpus) {
    if (v.index == 3) {
      EXPECT_EQ(v.verdict, Severity::kWarning);
      EXPECT_EQ(v.finding_ids, std::vector<std::string>{"stress.pcie_below_link"});
    } else {
      EXPECT_EQ(v.verdict, Severity::kOk) << v.index;
      EXPECT_TRUE(v.finding_ids.empty()) << v.index;
    }
  }
}

TEST(StressCauseFold, ASlowNvLinkPairIsOneFindingForBothDirections) {
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 4; ++i) gpus.push_back(HealthyGpu(i));
  auto input = StressInput({gpus});
  PeerExpectation e;
  e.path = "nvlink";
  e.links = e.links_active = 4;
  e.link_name = "NVLink 3.0";
  e.link_gbps = 25;
  e.theoretical_gbps = 100;
  e.achievable_share = 0.8;
  e.source = "NVIDIA A100 datasheet";
  for (const GpuStatus& a : gpus) {
    for (const GpuStatus& b : gpus) {
      if (a.index == b.index) continue;
      const bool slow = a.index + b.index == 1;  // 0 → 1 and 1 → 0
      input.active->p2p.push_back(ActivePeerCopy{a.index, b.index, a.pci_bus_id, b.pci_bus_id, true, slow ? 20.0 : 80.0, e});
    }
  }
  const Diagnosis raw = Diagnose(input, ActiveRules());
  EXPECT_EQ(Count(raw, "stress.weak_peer_pair"), 2u);
  EXPECT_EQ(Count(raw, "stress.peer_pair_below_links"), 2u);

  const Diagnosis d = StressFolded(input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.peer_pair_below_links");
  EXPECT_EQ(f.gpus, (std::vector<std::string>{HealthyGpu(0).pci_bus_id, HealthyGpu(1).pci_bus_id}));
  std::string evidence;
  for (const EvidenceItem& item : f.evidence) evidence += item.text.en + "\n";
  EXPECT_NE(evidence.find("GPU 1 → GPU 0"), std::string::npos) << evidence;
  for (const GpuVerdict& v : d.gpus) {
    EXPECT_EQ(v.verdict, v.index <= 1 ? Severity::kWarning : Severity::kOk) << v.index;
  }
}

TEST(StressCauseFold, ALinkSlowOneWayIsNotHalfDuplex) {
  // Gen5 x16 (63 GB/s): host to device 10 GB/s, device to host 50 GB/s, both
  // at once 52: the link is slow one way; the overlap could add at most 10.
  auto input = StressInput({{HealthyGpu(0)}});
  ActiveGpuResult& g = input.active->gpus[0];
  g.pcie_h2d_gbps = 10;
  g.pcie_d2h_gbps = 50;
  g.pcie_bidir_gbps = 52;
  g.pcie_link_gen = g.pcie_link_gen_max = 5;
  g.pcie_link_width = g.pcie_link_width_max = 16;
  const Diagnosis d = StressFolded(input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "stress.pcie_below_link");
  EXPECT_NE(d.findings[0].title.en.find("PCIe host-to-device copies reach only 16 % of its Gen5 x16 link "
                                        "(device to host 79 %): slow one way"),
            std::string::npos)
      << d.findings[0].title.en;
  EXPECT_EQ(Count(d, "stress.pcie_half_duplex"), 0u);
}

TEST(StressCauseFold, FindingsWithoutACauseStayApart) {
  Diagnosis d;
  Finding a, b;
  a.id = "x.one";
  b.id = "x.two";
  a.gpus = b.gpus = {"0000:01:00.0"};
  d.findings = {a, b};
  d.gpus.push_back(
      GpuVerdict{"0000:01:00.0", 0, "0000:01:00.0", "", "", "ok", Severity::kOk, {}, {}});
  FoldCauses(d);
  EXPECT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.gpus[0].finding_ids, (std::vector<std::string>{"x.one", "x.two"}));
}

}  // namespace stress_cause_fold_test
}  // namespace
}  // namespace gpudoctor::testing
