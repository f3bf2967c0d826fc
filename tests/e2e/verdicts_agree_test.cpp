// End-to-end: the per-GPU verdict lines and the folded findings never
// disagree. Real `nvidia-smi -q` of eight H100s with a pending MIG mode on
// every GPU (one folded finding) besides findings on one GPU (thermal
// slowdown, power brake): each GPU's verdict names exactly the findings that
// name it, at the worst of their levels, in JSON and in the text report.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "support/analyze_json.h"
#include "support/fixtures.h"

namespace gpudoctor::test {
namespace {
namespace verdicts_agree_test {

int Level(const std::string& severity) {
  static const std::map<std::string, int> kLevels{{"ok", 0}, {"info", 1}, {"warning", 2}, {"critical", 3}};
  return kLevels.at(severity);
}

// gpud's H100 x8 capture (gpud-h100x8-535.183.01-q-replays.txt) with each
// GPU's MIG mode pending Enabled: a reset away from a mode change on all 8.
std::string EightGpusPendingMig() {
  std::string q = ReadFixtureFile("text", "gpud-h100x8-535.183.01-q-replays.txt");
  const std::string disabled =
      "    MIG Mode\n        Current                           : Disabled\n"
      "        Pending                           : Disabled\n";
  const std::string pending =
      "    MIG Mode\n        Current                           : Disabled\n"
      "        Pending                           : Enabled\n";
  for (std::size_t at = q.find(disabled); at != std::string::npos; at = q.find(disabled, at + pending.size())) {
    q.replace(at, disabled.size(), pending);
  }
  return q;
}

TEST(VerdictsAgreeE2E, PerGpuVerdictsMatchTheFoldedFindings) {
  const std::string q = EightGpusPendingMig();
  if (q.empty()) GTEST_SKIP() << "shared fixtures missing";
  auto a = AnalyseText("h100x8-q.txt", q);
  ASSERT_EQ(a.exit_code, 1) << a.err;

  std::size_t pending_findings = 0;
  for (const auto& f : a.doc["findings"]) {
    if (f["id"] != "config.pending_mode_change") continue;
    ++pending_findings;
    EXPECT_EQ(f["gpus"].size(), 8u) << f.dump(1);
    EXPECT_EQ(f["severity"], "warning");
    EXPECT_EQ(f["title"], "8 of 8 GPUs: MIG mode change is waiting for a GPU reset");
  }
  EXPECT_EQ(pending_findings, 1u) << a.doc["findings"].dump(1);
  const json* thermal = FindingOf(a.doc, "thermal.slowdown");
  ASSERT_TRUE(thermal) << a.doc["findings"].dump(1);
  EXPECT_EQ((*thermal)["gpus"], json::array({"0000:75:00.0"}));

  ASSERT_EQ(a.doc["gpus"].size(), 8u);
  for (const auto& g : a.doc["gpus"]) {
    const std::string bus = g["pci_bus_id"];
    std::set<std::string> named;
    int worst = 0;
    for (const auto& f : a.doc["findings"]) {
      const auto& gpus = f["gpus"];
      if (std::find(gpus.begin(), gpus.end(), bus) == gpus.end()) continue;
      named.insert(f["id"].get<std::string>());
      worst = std::max(worst, Level(f["severity"]));
    }
    const std::set<std::string> listed(g["findings"].begin(), g["findings"].end());
    EXPECT_EQ(listed, named) << bus;
    EXPECT_EQ(Level(g["verdict"]), worst) << bus;
    EXPECT_TRUE(listed.count("config.pending_mode_change")) << bus;
  }

  // The text report's verdict lines say the same.
  TempDir dir;
  auto text = RunProcess({GPUDOCTOR_BINARY, "analyze", dir.Write("h100x8-q.txt", q)}, EnglishOnly());
  std::istringstream lines(text.out);
  std::size_t verdict_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("GPU ", 0) != 0 || line.find("  NVIDIA H100") == std::string::npos) continue;
    ++verdict_lines;
    EXPECT_NE(line.find("WARNING"), std::string::npos) << line;
    EXPECT_NE(line.find("config.pending_mode_change"), std::string::npos) << line;
    EXPECT_EQ(line.find("thermal.slowdown") != std::string::npos, line.find("0000:75:00.0") != std::string::npos)
        << line;
  }
  EXPECT_EQ(verdict_lines, 8u) << text.out;
}

}  // namespace verdicts_agree_test
}  // namespace
}  // namespace gpudoctor::test
