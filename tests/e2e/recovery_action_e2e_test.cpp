// End-to-end: the driver asks for a node reboot for GPU 1 (NVML field 230
// through the fake library's real dlopen path). Every format of diagnose
// says so per finding, per GPU and for the node, and names it as the
// remediation systems do: RESTART_BM on bare metal, RESTART_VM on a cloud
// instance (the hypervisor flag in /proc/cpuinfo under --root).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/fake_host.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {
namespace recovery_action_e2e_local {

using nlohmann::json;

std::string RebootAskedFor(const TempDir& dir) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json");
  json s = json::parse(in, nullptr, false);
  if (!s.is_object() || s["gpus"].size() < 2) return "";
  s["gpus"][1]["recovery_action"] = 2;  // Node Reboot
  return dir.Write("reboot_asked.json", s.dump());
}

ProcessResult Diagnose(const TempDir& root, const std::string& scenario,
                       const std::string& format) {
  return RunGpudoctor({"diagnose", "--root", root.path().string(), "--duration", "500ms",
                       "--format", format, "--lang", "en"},
                      scenario);
}

TEST(RecoveryActionE2E, TheDriversRequestReachesEveryFormatAndTheRemediationNames) {
  TempDir root, dir;
  WriteQuietHost(root, {"0000:18:00.0", "0000:19:00.0"});
  root.Write("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae\n");
  const std::string scenario = RebootAskedFor(dir);
  ASSERT_FALSE(scenario.empty());

  auto j = Diagnose(root, scenario, "json");
  EXPECT_EQ(j.exit_code, 2) << j.err;
  json doc = json::parse(j.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << j.out.substr(0, 1000);
  EXPECT_EQ(doc["recommended_action"], "reboot_node");
  EXPECT_EQ(doc["recommended_action_as"]["gpud"], "REBOOT_SYSTEM");
  EXPECT_EQ(doc["recommended_action_as"]["nvsentinel"]["name"], "RESTART_BM");
  EXPECT_EQ(doc["recommended_action_as"]["nvsentinel"]["value"], 24);
  ASSERT_EQ(doc["gpus"].size(), 2u);
  EXPECT_EQ(doc["gpus"][0]["recommended_action"], "none");
  EXPECT_EQ(doc["gpus"][1]["recommended_action"], "reboot_node");
  bool found = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "gpu.recovery_action") continue;
    found = true;
    EXPECT_EQ(f["recommended_action"], "reboot_node");
    EXPECT_EQ(f["recommended_action_by_driver"], true);
    EXPECT_EQ(f["gpus"], json::array({"0000:19:00.0"}));
  }
  EXPECT_TRUE(found) << doc["findings"].dump(1);

  auto text = Diagnose(root, scenario, "text");
  EXPECT_NE(text.out.find("  Recovery: reboot the node (the driver asks for it)\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\nRecovery: reboot the node (GPU 1)\nSummary: CRITICAL"),
            std::string::npos)
      << text.out;
  auto md = Diagnose(root, scenario, "markdown");
  EXPECT_NE(md.out.find("**Recovery:** reboot the node (GPU 1)"), std::string::npos)
      << md.out.substr(0, 2000);
  auto html = Diagnose(root, scenario, "html");
  EXPECT_NE(html.out.find("class=\"recovery\" data-action=\"reboot_node\""), std::string::npos);

  // A cloud instance: the VM's words.
  root.Write("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae hypervisor\n");
  auto vm = Diagnose(root, scenario, "json");
  json vm_doc = json::parse(vm.out, nullptr, false);
  ASSERT_TRUE(vm_doc.is_object()) << vm.err;
  EXPECT_EQ(vm_doc["recommended_action_as"]["nvsentinel"]["name"], "RESTART_VM");
}

}  // namespace recovery_action_e2e_local
}  // namespace
}  // namespace gpudoctor::test
