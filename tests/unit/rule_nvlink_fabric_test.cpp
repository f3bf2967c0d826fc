// The NVLink fabric rules: registration (nvlink.fabric_registration), the
// health mask (nvlink.fabric_health) and the NVLink P2P matrix
// (nvlink.fabric_peers).
#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace rule_nvlink_fabric_test_ns {

GpuStatus OnFabric(unsigned index, FabricState state = FabricState::kCompleted) {
  GpuStatus g = HealthyGpu(index);
  for (unsigned l = 0; l < 18; ++l) g.nvlinks.push_back(NvLinkStatus{l, true, 0, 0, 0, 0, std::nullopt, "", std::nullopt});
  GpuFabric f;
  f.state = state;
  if (state == FabricState::kCompleted) {
    f.status_code = 0;
    f.status = "Success";
  }
  f.clique_id = 0;
  f.cluster_uuid = "00000000-0000-0000-0000-000000000000";
  f.health_mask = 0xAA;  // every field FALSE
  f.degraded_bandwidth = f.route_recovery = f.route_unhealthy = f.access_timeout_recovery = false;
  g.fabric = f;
  return g;
}

std::vector<GpuStatus> EightWithPeers(int status = 0) {
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 8; ++i) gpus.push_back(OnFabric(i));
  for (GpuStatus& g : gpus) {
    for (const GpuStatus& p : gpus) {
      if (p.index != g.index) g.nvlink_peers.push_back(NvLinkPeer{p.index, p.pci_bus_id, status});
    }
  }
  return gpus;
}

TEST(NvlinkFabricRegistrationRule, AHealthyNvSwitchNodeAndPcieCardsStayQuiet) {
  auto d = RunRule(kNvlinkFabricRegistrationRule, RepeatedReadings(EightWithPeers(), 2));
  EXPECT_FALSE(HasFinding(d, "nvlink.fabric_registration"));
  GpuStatus pcie = HealthyGpu(0);
  pcie.fabric = GpuFabric{};  // state not supported
  EXPECT_TRUE(RunRule(kNvlinkFabricRegistrationRule, RepeatedReadings({pcie, HealthyGpu(1)}, 1))
                  .findings.empty());
}

TEST(NvlinkFabricRegistrationRule, NotStartedIsCritical) {
  auto d = RunRule(kNvlinkFabricRegistrationRule,
                   RepeatedReadings({OnFabric(0, FabricState::kNotStarted), OnFabric(1)}, 2));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "nvlink.fabric_registration");
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].title.en.find("has not registered"), std::string::npos);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("not_started"), std::string::npos);
}

TEST(NvlinkFabricRegistrationRule, InProgressSoonAfterBootIsOnlyNews) {
  DiagnosisInput input = RepeatedReadings({OnFabric(0, FabricState::kInProgress)}, 1);
  input.host = HostFacts{};
  input.host->uptime_s = 90;
  auto early = RunRule(kNvlinkFabricRegistrationRule, input);
  ASSERT_EQ(early.findings.size(), 1u);
  EXPECT_EQ(early.findings[0].severity, Severity::kInfo);
  input.host->uptime_s = 3600;
  auto stuck = RunRule(kNvlinkFabricRegistrationRule, input);
  ASSERT_EQ(stuck.findings.size(), 1u);
  EXPECT_EQ(stuck.findings[0].severity, Severity::kCritical);
  EXPECT_NE(stuck.findings[0].title.en.find("stuck"), std::string::npos);
}

TEST(NvlinkFabricRegistrationRule, CompletedWithAnErrorStatusIsCritical) {
  GpuStatus g = OnFabric(3);
  g.fabric->status_code = 27;
  g.fabric->status = "NVML doesn't have the resources required";
  auto d = RunRule(kNvlinkFabricRegistrationRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("resources"), std::string::npos);
  // From nvidia-smi text only the status text is known.
  g.fabric->status_code.reset();
  EXPECT_EQ(RunRule(kNvlinkFabricRegistrationRule, RepeatedReadings({g}, 1)).findings.size(), 1u);
}

TEST(NvlinkFabricRegistrationRule, ClusterIdsAreJudgedOnlyOnMultiNodeNvlink) {
  // An HGX H100 with a zero cluster UUID and clique 0 is normal.
  EXPECT_TRUE(RunRule(kNvlinkFabricRegistrationRule, RepeatedReadings({OnFabric(0)}, 1)).findings.empty());
  GpuStatus gb = OnFabric(0);
  gb.name = "NVIDIA GB200";
  auto d = RunRule(kNvlinkFabricRegistrationRule, RepeatedReadings({gb}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  gb.fabric->cluster_uuid = "5e1a7c04-2d3b-4f7e-9a61-0c2b8d9e4f10";
  gb.fabric->clique_id = 32766;
  EXPECT_TRUE(RunRule(kNvlinkFabricRegistrationRule, RepeatedReadings({gb}, 1)).findings.empty());
}

TEST(NvlinkFabricHealthRule, EachHealthBitIsAFinding) {
  struct Case {
    std::optional<bool> GpuFabric::*field;
    Severity severity;
    const char* words;
  };
  const Case cases[] = {{&GpuFabric::degraded_bandwidth, Severity::kWarning, "degraded"},
                        {&GpuFabric::route_recovery, Severity::kWarning, "route recovery"},
                        {&GpuFabric::route_unhealthy, Severity::kCritical, "unhealthy"},
                        {&GpuFabric::access_timeout_recovery, Severity::kWarning, "access timeout"}};
  for (const Case& c : cases) {
    GpuStatus g = OnFabric(1);
    (*g.fabric).*c.field = true;
    auto d = RunRule(kNvlinkFabricHealthRule, RepeatedReadings({OnFabric(0), g}, 2));
    ASSERT_EQ(d.findings.size(), 1u) << c.words;
    EXPECT_EQ(d.findings[0].id, "nvlink.fabric_health");
    EXPECT_EQ(d.findings[0].severity, c.severity) << c.words;
    EXPECT_EQ(d.findings[0].gpus, std::vector<std::string>{g.pci_bus_id});
    EXPECT_NE(d.findings[0].title.en.find(c.words), std::string::npos) << d.findings[0].title.en;
  }
}

TEST(NvlinkFabricHealthRule, UnreportedOrClearBitsStayQuiet) {
  GpuStatus g = OnFabric(0);
  g.fabric->route_unhealthy.reset();
  g.fabric->access_timeout_recovery.reset();
  EXPECT_TRUE(RunRule(kNvlinkFabricHealthRule, RepeatedReadings({g}, 2)).findings.empty());
}

TEST(NvlinkFabricPeersRule, PairsNotSupportedOverNvlinkAreOneFinding) {
  auto gpus = EightWithPeers();
  // GPU 5 reaches nobody over NVLink, although its links read up.
  for (GpuStatus& g : gpus) {
    for (NvLinkPeer& p : g.nvlink_peers) {
      if (g.index == 5 || p.peer_index == 5) p.status = 5;  // NVML_P2P_STATUS_NOT_SUPPORTED
    }
  }
  auto d = RunRule(kNvlinkFabricPeersRule, RepeatedReadings(gpus, 2));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "nvlink.fabric_peers");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus.size(), 8u);
  EXPECT_EQ(f.evidence[0].value, 7.0);
  EXPECT_NE(f.evidence[0].text.en.find("0-5, 1-5"), std::string::npos) << f.evidence[0].text.en;
  EXPECT_NE(f.evidence[1].text.en.find("7 pairs answer not_supported"), std::string::npos);
}

TEST(NvlinkFabricPeersRule, HealthyAndPcieSystemsStayQuiet) {
  EXPECT_TRUE(RunRule(kNvlinkFabricPeersRule, RepeatedReadings(EightWithPeers(), 2)).findings.empty());
  // PCIe cards without NVLink: every pair "not supported" over NVLink is normal.
  std::vector<GpuStatus> pcie = {HealthyGpu(0), HealthyGpu(1)};
  pcie[0].nvlink_peers.push_back(NvLinkPeer{1, pcie[1].pci_bus_id, 5});
  pcie[1].nvlink_peers.push_back(NvLinkPeer{0, pcie[0].pci_bus_id, 5});
  EXPECT_TRUE(RunRule(kNvlinkFabricPeersRule, RepeatedReadings(pcie, 1)).findings.empty());
}

TEST(NvlinkFabricPeersRule, BridgedPairsAreJudgedByWhereTheirLinksLead) {
  // Two bridged pairs (0-1, 2-3) without NVSwitch: 0-2 has no NVLink, by design.
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 4; ++i) gpus.push_back(HealthyGpu(i));
  auto link = [&](unsigned a, unsigned b) {
    gpus[a].nvlinks.push_back(NvLinkStatus{0, true, 0, 0, 0, 0, 4, gpus[b].pci_bus_id, std::nullopt});
  };
  link(0, 1), link(1, 0), link(2, 3), link(3, 2);
  for (GpuStatus& g : gpus) {
    for (const GpuStatus& p : gpus) {
      if (p.index == g.index) continue;
      const bool bridged = (g.index / 2) == (p.index / 2);
      g.nvlink_peers.push_back(NvLinkPeer{p.index, p.pci_bus_id, bridged ? 0 : 5});
    }
  }
  EXPECT_TRUE(RunRule(kNvlinkFabricPeersRule, RepeatedReadings(gpus, 1)).findings.empty());
  // The bridge of 2-3 no longer carries P2P: that pair is named.
  gpus[2].nvlink_peers[2].status = 5;  // towards GPU 3
  auto d = RunRule(kNvlinkFabricPeersRule, RepeatedReadings(gpus, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("2-3"), std::string::npos);
  EXPECT_EQ(d.findings[0].evidence[0].value, 1.0);
}

}  // namespace rule_nvlink_fabric_test_ns
}  // namespace gpudoctor::testing
