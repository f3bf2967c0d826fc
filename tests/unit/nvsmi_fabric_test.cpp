// The Fabric block of nvidia-smi -q text and -q -x XML (parse/nvsmi_fabric.h).
#include <gtest/gtest.h>

#include <string>

#include "parse/nvsmi_fabric.h"
#include "parse/nvsmi_text.h"
#include "parse/nvsmi_xml.h"
#include "support/fixtures.h"

namespace gpudoctor {
namespace nvsmi_fabric_test_ns {

// A GPU block of `nvidia-smi -q` with `fabric` as its Fabric block.
std::string TextWith(const std::string& fabric) {
  return "==============NVSMI LOG==============\n\n"
         "Driver Version                            : 570.124.06\n"
         "CUDA Version                              : 12.8\n\n"
         "Attached GPUs                             : 1\n"
         "GPU 00000000:18:00.0\n"
         "    Product Name                          : NVIDIA H100 80GB HBM3\n"
         "    Fan Speed                             : N/A\n" +
         fabric + "    Processes                             : None\n";
}

GpuStatus OneTextGpu(const std::string& fabric) {
  auto status = ParseNvidiaSmiText(TextWith(fabric), "inline");
  EXPECT_TRUE(status.ok()) << status.error().message;
  if (!status.ok() || status->gpus.size() != 1) return {};
  return status->gpus[0];
}

TEST(NvsmiFabric, TextStuckInProgressWithHealth) {
  GpuStatus g = OneTextGpu(
      "    Fabric\n"
      "        State                             : In Progress\n"
      "        Status                            : N/A\n"
      "        CliqueId                          : N/A\n"
      "        ClusterUUID                       : N/A\n"
      "        Health\n"
      "            Bandwidth                     : Degraded\n"
      "            Route Recovery in progress    : False\n"
      "            Route Unhealthy               : True\n"
      "            Access Timeout Recovery       : N/A\n");
  ASSERT_TRUE(g.fabric);
  EXPECT_EQ(g.fabric->state, FabricState::kInProgress);
  EXPECT_TRUE(g.fabric->status.empty());
  EXPECT_EQ(g.fabric->degraded_bandwidth, true);
  EXPECT_EQ(g.fabric->route_recovery, false);
  EXPECT_EQ(g.fabric->route_unhealthy, true);
  EXPECT_FALSE(g.fabric->access_timeout_recovery);
}

TEST(NvsmiFabric, TextCompletedWithAnError) {
  GpuStatus g = OneTextGpu(
      "    Fabric\n"
      "        State                             : Completed\n"
      "        Status                            : Insufficient resources\n"
      "        CliqueId                          : 32766\n"
      "        ClusterUUID                       : 5E1A7C04-2D3B-4F7E-9A61-0C2B8D9E4F10\n");
  ASSERT_TRUE(g.fabric);
  EXPECT_EQ(g.fabric->state, FabricState::kCompleted);
  EXPECT_EQ(g.fabric->status, "Insufficient resources");
  EXPECT_FALSE(g.fabric->status_code);
  EXPECT_EQ(g.fabric->clique_id, 32766u);
  EXPECT_EQ(g.fabric->cluster_uuid, "5e1a7c04-2d3b-4f7e-9a61-0c2b8d9e4f10");
}

TEST(NvsmiFabric, NotApplicableLeavesNoFabric) {
  GpuStatus g = OneTextGpu(
      "    Fabric\n"
      "        State                             : N/A\n"
      "        Status                            : N/A\n");
  EXPECT_FALSE(g.fabric);
}

TEST(NvsmiFabric, XmlBlock) {
  const std::string xml =
      "<?xml version=\"1.0\" ?>\n<nvidia_smi_log><driver_version>580.82.07</driver_version>"
      "<gpu id=\"00000000:18:00.0\"><product_name>NVIDIA H200</product_name>"
      "<fabric><state>Not Started</state><status>N/A</status><cliqueId>N/A</cliqueId>"
      "<clusterUuid>N/A</clusterUuid><health><summary>N/A</summary><bandwidth>N/A</bandwidth>"
      "<route_recovery_in_progress>True</route_recovery_in_progress>"
      "<route_unhealthy>N/A</route_unhealthy>"
      "<access_timeout_recovery>False</access_timeout_recovery></health></fabric>"
      "</gpu></nvidia_smi_log>\n";
  auto doc = ParseNvidiaSmiXml(xml, "inline");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  ASSERT_EQ(doc->gpus.size(), 1u);
  const auto& f = doc->gpus[0].fabric;
  ASSERT_TRUE(f);
  EXPECT_EQ(f->state, FabricState::kNotStarted);
  EXPECT_EQ(f->route_recovery, true);
  EXPECT_EQ(f->access_timeout_recovery, false);
  EXPECT_FALSE(f->degraded_bandwidth);
}

TEST(NvsmiFabric, MalformedValuesAreIgnored) {
  std::optional<GpuFabric> f;
  EXPECT_TRUE(ApplyFabricValue("CliqueId", "12x", f));
  EXPECT_TRUE(ApplyFabricValue("State", "Exploded", f));
  EXPECT_FALSE(ApplyFabricValue("Colour", "blue", f));
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->clique_id);
  FinishFabric(f);
  EXPECT_FALSE(f);  // no known state: nothing to judge
}

TEST(NvsmiFabric, RealCapturesOfAnHgxNodeAndAPcieCard) {
  std::string hgx = test::ReadFixtureFile("text", "gpud-h100x8-535.183.01-q-replays.txt");
  std::string pcie = test::ReadFixtureFile("text", "gpuexporter-l40s-595.80-load-q.txt");
  if (hgx.empty() || pcie.empty()) GTEST_SKIP() << "shared fixtures not present";
  auto h = ParseNvidiaSmiText(hgx, "hgx");
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(h->gpus.size(), 8u);
  for (const GpuStatus& g : h->gpus) {
    ASSERT_TRUE(g.fabric) << g.pci_bus_id;
    EXPECT_EQ(g.fabric->state, FabricState::kCompleted);
    EXPECT_EQ(g.fabric->status_code, 0);
  }
  auto p = ParseNvidiaSmiText(pcie, "pcie");
  ASSERT_TRUE(p.ok());
  for (const GpuStatus& g : p->gpus) EXPECT_FALSE(g.fabric);
}

}  // namespace nvsmi_fabric_test_ns
}  // namespace gpudoctor
