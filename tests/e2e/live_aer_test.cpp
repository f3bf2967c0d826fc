// End-to-end: a live `diagnose` ties the AER reports of the port above a GPU
// to that GPU through the PCI tree in sysfs, when no line of the kernel's
// burst names the nvidia driver. The kernel ring buffer is a regular file
// standing in for /dev/kmsg.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fake_host.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

// The root port 0000:00:01.0 above GPU 0000:18:00.0 loses the link (Surprise
// Down) and cannot recover; the driver's own lines are not in the buffer.
void PortOnlyBurst(const TempDir& root) {
  root.Write("dev/kmsg",
             "6,1,1000,-;Linux version 6.1.0\n"
             "3,2,5000000000,-;pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: "
             "0000:00:01.0\n"
             "3,3,5000000100,-;pcieport 0000:00:01.0: PCIe Bus Error: severity=Uncorrected "
             "(Fatal), type=Transaction Layer, (Requester ID)\n"
             "3,4,5000000200,-;pcieport 0000:00:01.0:    [ 5] SDES                  \n"
             "3,5,5000000300,-;pcieport 0000:00:01.0: AER: device recovery failed\n");
}

json Diagnose(const TempDir& root) {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  auto r = RunGpudoctor({"diagnose", "--root", root.path().string(), "--duration", "1s",
                         "--interval", "500ms", "--lang", "en", "--format", "json", "--since",
                         "3650d"},
                        std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json", o);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2) << r.err;
  return json::parse(r.out, nullptr, false);
}

TEST(LiveAerE2E, PortReportsAreTheGpuBelowItPerTheSysfsTree) {
  TempDir root;
  WriteQuietHost(root, {});
  WriteGpuBehindPorts(root, "0000:00:01.0/", "0000:18:00.0");
  WriteGpuBehindPorts(root, "0000:00:02.0/", "0000:19:00.0");
  PortOnlyBurst(root);
  json doc = Diagnose(root);
  ASSERT_FALSE(doc.is_discarded());
  const json* aer = nullptr;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "pcie.aer") aer = &f;
  }
  ASSERT_NE(aer, nullptr) << doc["findings"].dump(1);
  EXPECT_EQ((*aer)["severity"], "critical");
  EXPECT_EQ((*aer)["gpus"], json::array({"0000:18:00.0"}));
  EXPECT_EQ(doc["verdict"], "critical");
  // facts name the port above each GPU.
  auto facts = RunGpudoctor({"facts", "--json", "--root", root.path().string(), "--window", "50ms"},
                            std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json");
  ASSERT_EQ(facts.exit_code, 0) << facts.err;
  json f = json::parse(facts.out);
  bool port_listed = false;
  for (const auto& g : f["pci"]["gpus"]) {
    if (g["bus_id"] == "0000:18:00.0") port_listed = g["upstream_ports"] == json::array({"0000:00:01.0"});
  }
  EXPECT_TRUE(port_listed) << f["pci"].dump();
}

// Without the tree the port's link loss names no GPU, but it is still a
// critical host-wide finding (main dropped the burst: no finding at all).
TEST(LiveAerE2E, WithoutTheTreeAPortsOwnReportsNameNoGpu) {
  TempDir root;
  WriteQuietHost(root, {"0000:18:00.0", "0000:19:00.0"});  // plain directories, no links
  PortOnlyBurst(root);
  json doc = Diagnose(root);
  ASSERT_FALSE(doc.is_discarded());
  const json* aer = nullptr;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "pcie.aer") aer = &f;
  }
  ASSERT_NE(aer, nullptr) << doc["findings"].dump(1);
  EXPECT_EQ((*aer)["severity"], "critical");
  EXPECT_TRUE((*aer)["gpus"].empty()) << aer->dump();
  EXPECT_NE((*aer)["title"].get<std::string>().find("port 0000:00:01.0"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::test
