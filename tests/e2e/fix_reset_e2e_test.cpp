// End-to-end: `fix --reset-gpu` with the fake NVML and a fake nvidia-smi on
// PATH that logs what it is asked. A dry run shows the preconditions and the
// commands and changes nothing; --apply turns persistence off, resets,
// restores it and records the outcome; a refused reset ("In use by another
// client") still restores persistence, keeps the evidence, recommends the
// reboot and exits 2; past the anti-storm limit it refuses to reset.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {
namespace fix_reset_e2e_local {

const std::string kScenario = std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json";

class FixResetE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_.Write("nvidia-smi",
               "#!/bin/bash\n"
               "echo \"$*\" >> " +
                   (bin_.path() / "calls.log").string() +
                   "\n"
                   "if [ \"$1\" = --gpu-reset ] && [ -e " +
                   (bin_.path() / "refuse").string() +
                   " ]; then\n"
                   "  echo 'Unable to reset GPU 00000000:18:00.0 because it is being used by some "
                   "other process. In use by another client'\n"
                   "  exit 255\n"
                   "fi\n"
                   "echo 'All done.'\n");
    std::filesystem::permissions(bin_.path() / "nvidia-smi", std::filesystem::perms::owner_all);
  }
  ProcessResult Fix(std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "fix",    "--reset-gpu",        "0", "--data-dir", data_.path().string(),
        "--root", root_.path().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessOptions o;
    o.env["PATH"] = bin_.path().string() + ":/usr/bin:/bin";
    return RunGpudoctor(args, kScenario, o);
  }
  std::string Calls() const {
    std::ifstream in(bin_.path() / "calls.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  TempDir bin_, data_, root_;
};

TEST_F(FixResetE2E, DryRunShowsPreconditionsAndCommandsAndChangesNothing) {
  auto r = Fix({});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("[ok]     processes: no process uses the GPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[note]   persistence: persistence mode is on"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("$ sudo nvidia-smi --gpu-reset -i 0000:18:00.0"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Dry run: nothing was changed"), std::string::npos) << r.out;
  EXPECT_EQ(Calls(), "");
  // A service holding the GPUs (here DCGM's nv-hostengine under --root) blocks.
  root_.Write("proc/77/comm", "nv-hostengine\n");
  auto held = Fix({"--format", "json"});
  EXPECT_EQ(held.exit_code, 1) << held.err;
  auto doc = nlohmann::json::parse(held.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << held.out;
  EXPECT_EQ(doc["blocked"], true);
  EXPECT_EQ(doc["applied"], false);
  bool holders = false;
  for (const auto& c : doc["checks"]) {
    if (c["name"] == "holders") holders = c["state"] == "blocks";
  }
  EXPECT_TRUE(holders) << doc.dump(1);
  EXPECT_EQ(Calls(), "");
}

TEST_F(FixResetE2E, ApplyResetsRestoresPersistenceAndRecordsIt) {
  auto r = Fix({"--apply", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(Calls(), "-i 0000:18:00.0 -pm 0\n--gpu-reset -i 0000:18:00.0\n-i 0000:18:00.0 -pm 1\n");
  EXPECT_NE(r.out.find("Done: the GPU was reset and answers again"), std::string::npos) << r.out;
  std::ifstream log(data_.path() / "fix-audit.log");
  std::string line;
  ASSERT_TRUE(std::getline(log, line));
  auto entry = nlohmann::json::parse(line, nullptr, false);
  EXPECT_EQ(entry["step"], "gpu_reset");
  EXPECT_EQ(entry["result"], "ok");
}

TEST_F(FixResetE2E, ARefusedResetRestoresPersistenceKeepsEvidenceAndRecommendsTheReboot) {
  bin_.Write("refuse", "");
  auto r = Fix({"--apply", "--yes"});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_EQ(Calls(), "-i 0000:18:00.0 -pm 0\n--gpu-reset -i 0000:18:00.0\n-i 0000:18:00.0 -pm 1\n");
  EXPECT_NE(r.out.find("FAILED: the reset failed (exit 255: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("In use by another client"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Recommended: reboot the node"), std::string::npos) << r.out;
  bool evidence = false;
  for (const auto& e : std::filesystem::directory_iterator(data_.path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind("reset-0000-18-00.0-", 0) != 0) continue;
    evidence = true;
    std::ifstream in(e.path());
    std::stringstream s;
    s << in.rdbuf();
    EXPECT_NE(s.str().find("In use by another client"), std::string::npos);
    EXPECT_NE(s.str().find("status after:"), std::string::npos);
  }
  EXPECT_TRUE(evidence);

  // Two more failed resets: the third attempt is past the limit (3 in 24 h).
  Fix({"--apply", "--yes"});
  Fix({"--apply", "--yes"});
  std::filesystem::remove(bin_.path() / "calls.log");
  auto stormed = Fix({"--apply", "--yes"});
  EXPECT_EQ(stormed.exit_code, 1) << stormed.out;
  EXPECT_NE(stormed.out.find("[BLOCKS] recent_recoveries: 3 GPU reset(s) and reboot(s)"),
            std::string::npos)
      << stormed.out;
  EXPECT_NE(stormed.out.find("contact the cloud provider"), std::string::npos) << stormed.out;
  EXPECT_EQ(Calls(), "") << "nothing run past the limit";
}

}  // namespace fix_reset_e2e_local
}  // namespace
}  // namespace gpudoctor::test
