// End-to-end: `gpudoctor inject` drills the chain. Without a confirmation
// nothing is written; with --yes the record lands in the kernel log (here
// ROOT/dev/kmsg) and the agent reading it reports the Xid's finding on that
// GPU, with the catalog's action; an undocumented code is refused.
#include <gtest/gtest.h>

#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {
namespace inject_e2e_local {

std::string Read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(InjectE2E, ConfirmedXidReachesTheAgentsFindings) {
  TempDir root, data;
  const auto now = static_cast<long long>(std::time(nullptr));
  root.Write("proc/stat",
             "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime " + std::to_string(now - 1000) + "\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  root.Write("proc/sys/kernel/random/boot_id", "6b1d0a0e-0000-4000-8000-0000000000c1\n");
  const std::string kmsg = root.Write("dev/kmsg", "6,1,1000,-;Linux version 6.1.0\n");

  auto refused = RunGpudoctor(
      {"inject", "--xid", "79", "--gpu", "0000:18:00.0", "--root", root.path().string()}, "");
  EXPECT_EQ(refused.exit_code, 3);
  EXPECT_NE(refused.err.find("not confirmed: give --yes"), std::string::npos) << refused.err;
  auto unknown = RunGpudoctor({"inject", "--xid", "100000", "--gpu", "0000:18:00.0", "--yes",
                               "--root", root.path().string()},
                              "");
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_NE(unknown.err.find("not an Xid NVIDIA's catalog documents"), std::string::npos)
      << unknown.err;
  EXPECT_EQ(Read(kmsg), "6,1,1000,-;Linux version 6.1.0\n") << "nothing written";

  auto r = RunGpudoctor(
      {"inject", "--xid", "79", "--gpu", "18:00.0", "--yes", "--root", root.path().string()}, "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string log = Read(kmsg);
  EXPECT_NE(log.find("\n12,2,"), std::string::npos) << log;
  EXPECT_NE(log.find(",-;NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU "
                     "has fallen off the bus.\n"),
            std::string::npos)
      << log;

  auto agent =
      RunGpudoctor({"agent", "--data-dir", data.path().string(), "--root", root.path().string(),
                    "--interval", "200ms", "--window", "60s", "--evaluate-every", "400ms",
                    "--facts-every", "1h", "--no-listen", "--run-for", "3s"},
                   std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json");
  ASSERT_EQ(agent.exit_code, 0) << agent.err;
  auto report = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "1h",
                              "--format", "json", "--lang", "en"},
                             "");
  auto doc = nlohmann::json::parse(report.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << report.err << report.out.substr(0, 1000);
  bool found = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "xid.fallen_off_bus") continue;
    found = true;
    EXPECT_EQ(f["gpus"], nlohmann::json::array({"0000:18:00.0"})) << f.dump();
    EXPECT_EQ(f["recommended_action"], "reboot_node") << f.dump();
  }
  EXPECT_TRUE(found) << doc["findings"].dump(1).substr(0, 2000);
}

}  // namespace inject_e2e_local
}  // namespace
}  // namespace gpudoctor::test
