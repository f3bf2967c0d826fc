#include "stress/p2p_expectation.h"

#include <gtest/gtest.h>

#include "knowledge/nvlink_rates.h"

namespace gpudoctor {
namespace {

ActiveGpuResult P2pGpu(const std::string& bus) {
  ActiveGpuResult g;
  g.pci_bus_id = bus;
  return g;
}

ActiveNvLink P2pLink(unsigned n, bool active, std::optional<std::int64_t> version, const std::string& remote,
                  bool remote_is_gpu) {
  return ActiveNvLink{n, active, version, remote, remote_is_gpu};
}

TEST(NvLinkRates, NvmlVersionCodesAreEncodingsNotGenerations) {
  EXPECT_EQ(FindNvLinkGeneration(4)->name, "NVLink 3.0");  // A100
  EXPECT_EQ(FindNvLinkGeneration(6)->name, "NVLink 4.0");  // H100
  EXPECT_EQ(FindNvLinkGeneration(6)->link_gbps, 25);
  EXPECT_EQ(FindNvLinkGeneration(7)->link_gbps, 50);       // B200
  EXPECT_FALSE(FindNvLinkGeneration(0));
  EXPECT_FALSE(FindNvLinkGeneration(99));
}

TEST(P2pExpectation, DirectLinksCountEvenWhenDown) {
  ActiveGpuResult a = P2pGpu("0000:01:00.0"), b = P2pGpu("0000:02:00.0");
  a.nvlinks = {P2pLink(0, true, 2, b.pci_bus_id, true), P2pLink(1, false, std::nullopt, b.pci_bus_id, true),
               P2pLink(2, true, 2, "0000:03:00.0", true)};
  auto e = ExpectPeerCopy(a, b, true);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->path, "nvlink");
  EXPECT_EQ(e->links, 2);
  EXPECT_EQ(e->links_active, 1);
  EXPECT_EQ(e->link_name, "NVLink 2.0");
  EXPECT_EQ(e->theoretical_gbps, 50);
  EXPECT_EQ(e->achievable_share, kNvLinkAchievableShare);
}

TEST(P2pExpectation, NvSwitchPathAtTheGpuWithFewerLinksUp) {
  ActiveGpuResult a = P2pGpu("0000:01:00.0"), b = P2pGpu("0000:02:00.0");
  for (unsigned l = 0; l < 4; ++l) {
    a.nvlinks.push_back(P2pLink(l, true, 6, "0000:a0:00.0", false));
    // b's link 3 is down and says nothing: still one of the fabric's.
    b.nvlinks.push_back(l == 3 ? P2pLink(l, false, std::nullopt, "", false) : P2pLink(l, true, 6, "0000:a1:00.0", false));
  }
  auto e = ExpectPeerCopy(a, b, true);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->path, "nvswitch");
  EXPECT_EQ(e->links, 4);
  EXPECT_EQ(e->links_active, 3);
  EXPECT_EQ(e->theoretical_gbps, 100);
}

TEST(P2pExpectation, WithoutNvLinkThePcieLinkOfTheSlowerGpu) {
  ActiveGpuResult a = P2pGpu("0000:01:00.0"), b = P2pGpu("0000:02:00.0");
  a.pcie_link_gen_max = 5;
  b.pcie_link_gen_max = 4;
  a.pcie_link_width_max = b.pcie_link_width_max = 16;
  auto peer = ExpectPeerCopy(a, b, true);
  ASSERT_TRUE(peer);
  EXPECT_EQ(peer->path, "pcie");
  EXPECT_EQ(peer->link_name, "PCIe Gen4 x16");
  EXPECT_NEAR(peer->theoretical_gbps, 31.5, 0.01);
  auto staged = ExpectPeerCopy(a, b, false);
  EXPECT_NEAR(staged->theoretical_gbps, 15.75, 0.01);
  b.pcie_link_gen_max.reset();
  EXPECT_FALSE(ExpectPeerCopy(a, b, true));
}

TEST(P2pExpectation, AnUnknownVersionGivesNoExpectation) {
  ActiveGpuResult a = P2pGpu("0000:01:00.0"), b = P2pGpu("0000:02:00.0");
  a.nvlinks = {P2pLink(0, true, 42, b.pci_bus_id, true)};
  EXPECT_FALSE(ExpectPeerCopy(a, b, true));
}

TEST(P2pExpectation, RemoteEndsAreClassedByTheNodesGpus) {
  SystemStatus node;
  node.gpus.resize(2);
  node.gpus[0].pci_bus_id = "0000:01:00.0";
  node.gpus[1].pci_bus_id = "0000:02:00.0";
  GpuStatus& g = node.gpus[0];
  g.nvlinks.resize(2);
  g.nvlinks[0].active = true;
  g.nvlinks[0].version = 4;
  g.nvlinks[0].remote_pci_bus_id = "0000:02:00.0";
  g.nvlinks[1].link = 1;
  g.nvlinks[1].active = true;
  g.nvlinks[1].remote_pci_bus_id = "0000:c0:00.0";
  auto links = ActiveNvLinksOf(g, node);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_TRUE(links[0].remote_is_gpu);
  EXPECT_EQ(links[0].version, 4);
  EXPECT_FALSE(links[1].remote_is_gpu);
  EXPECT_EQ(links[1].link, 1u);
}

}  // namespace
}  // namespace gpudoctor
