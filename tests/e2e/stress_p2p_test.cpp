// End-to-end: the p2p test held against each pair's links. The fake NVML
// says which NVLink links each GPU has, their version and where they lead;
// the fake libcuda copies between the GPUs at the scenario's p2p rate.
#include <gtest/gtest.h>

#include "e2e/stress_e2e.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

// `links` NVLink links of NVML version `version` from `gpu` to `peer`, the
// first `down` of them inactive.
void AddNvLinks(json& gpu, const std::string& peer, int links, int version, int down = 0) {
  if (!gpu.contains("nvlinks")) gpu["nvlinks"] = json::array();
  for (int i = 0; i < links; ++i) {
    gpu["nvlinks"].push_back({{"link", gpu["nvlinks"].size()},
                              {"active", i >= down},
                              {"version", version},
                              {"remote_pci_bus_id", peer}});
  }
}

TEST_F(StressE2e, NvLinkPairAtFullRatePasses) {
  // One NVLink 2.0 link each way (NVML version 2: 25 GB/s a direction);
  // the fake copies at 22 GB/s, 88 % of it.
  json a = StressGpu("0000:01:00.0", {{"p2p_gbps", 22}}), b = StressGpu("0000:02:00.0", {{"p2p_gbps", 22}});
  AddNvLinks(a, "0000:02:00.0", 1, 2);
  AddNvLinks(b, "0000:01:00.0", 1, 2);
  auto r = Run(Scenario({a, b}), {"--tests", "p2p", "--duration", "3s"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err << r.report.dump(2);
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  ASSERT_EQ(r.report["active"]["p2p"].size(), 2u);
  for (const json& p : r.report["active"]["p2p"]) {
    const json& e = p["expected"];
    EXPECT_EQ(e["path"], "nvlink") << p.dump(2);
    EXPECT_EQ(e["links"], 1);
    EXPECT_EQ(e["link"], "NVLink 2.0");
    EXPECT_EQ(e["link_gbps"], 25);
    EXPECT_EQ(e["theoretical_gbps"], 25);
    EXPECT_EQ(e["achievable_share"], 0.8);
    // Measured at most the fake's 22 GB/s: at most 88 % of the links.
    EXPECT_LE(p["share_of_expected"].get<double>(), 0.881);
    EXPECT_GT(p["share_of_expected"].get<double>(), 0.6);
  }
}

TEST_F(StressE2e, NvLinkPairWithALinkDownIsFlaggedAgainstLinksTimesRate) {
  // Two NVLink 3.0 links (NVML version 4) between the GPUs, one of them
  // down on both ends; the copies run at 12 GB/s of the 50 the two should carry.
  json a = StressGpu("0000:01:00.0", {{"p2p_gbps", 12}}), b = StressGpu("0000:02:00.0", {{"p2p_gbps", 12}});
  AddNvLinks(a, "0000:02:00.0", 2, 4, 1);
  AddNvLinks(b, "0000:01:00.0", 2, 4, 1);
  auto r = Run(Scenario({a, b}), {"--tests", "p2p", "--duration", "3s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.peer_pair_below_links"});
  const json* f = FindingFor(r.report, "stress.peer_pair_below_links");
  ASSERT_NE(f, nullptr);
  EXPECT_NE((*f)["title"].get<std::string>().find("of what its NVLink links should carry"), std::string::npos)
      << (*f)["title"];
  const std::string evidence = (*f)["evidence"].dump();
  EXPECT_NE(evidence.find("2 NVLink 3.0 links between the two x 25 GB/s = 50 GB/s a direction"),
            std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("only 1 of those 2 links are active"), std::string::npos) << evidence;
  const json& p = r.report["active"]["p2p"][0];
  EXPECT_EQ(p["expected"]["links"], 2);
  EXPECT_EQ(p["expected"]["links_active"], 1);
  EXPECT_LE(p["share_of_expected"].get<double>(), 0.241);
}

TEST_F(StressE2e, PairWithoutNvLinkIsJudgedAgainstPcie) {
  // No NVLink; both GPUs on Gen4 x16 (31.5 GB/s), the copies at 10 GB/s.
  json a = StressGpu("0000:01:00.0"), b = StressGpu("0000:02:00.0");
  for (json* g : {&a, &b}) {
    (*g)["pcie_link_gen_current"] = (*g)["pcie_link_gen_max"] = 4;
    (*g)["pcie_link_width_current"] = (*g)["pcie_link_width_max"] = 16;
  }
  auto r = Run(Scenario({a, b}), {"--tests", "p2p", "--duration", "3s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.peer_pair_below_links"});
  const json* f = FindingFor(r.report, "stress.peer_pair_below_links");
  EXPECT_NE((*f)["title"].get<std::string>().find("of what its PCIe link should carry"), std::string::npos);
  EXPECT_NE((*f)["evidence"].dump().find("PCIe Gen4 x16 carries 31.5 GB/s a direction"), std::string::npos)
      << (*f)["evidence"].dump();
  EXPECT_EQ(r.report["active"]["p2p"][0]["expected"]["path"], "pcie");
}

}  // namespace
}  // namespace gpudoctor::test
