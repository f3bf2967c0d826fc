// End-to-end: one finding per cause. The same finding on several GPUs is
// shown once, naming them all, with each GPU's evidence folded under it, in
// every format; findings that differ in substance stay apart.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/text_count.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

// The eight-GPU scenario with the power brake on every GPU.
std::string EightBrakingGpus(const TempDir& dir) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/scenarios/eight_gpus.json");
  json scenario = json::parse(in);
  for (auto& gpu : scenario["gpus"]) gpu["clock_event_reasons"] = {"hw_power_brake_slowdown"};
  return dir.Write("braking.json", scenario.dump());
}

ProcessOptions FoldedInEnglish() {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  return o;
}

std::vector<std::string> DiagnoseArgs(const TempDir& root, const std::string& format) {
  return {"diagnose", "--root", root.path().string(), "--duration", "1s", "--interval", "250ms",
          "--lang", "en", "--format", format};
}

TEST(FoldedFindingsE2E, PowerBrakeOnEightGpusIsOneFindingInEveryFormat) {
  TempDir root;
  const std::string scenario = EightBrakingGpus(root);

  auto r = RunGpudoctor(DiagnoseArgs(root, "json"), scenario, FoldedInEnglish());
  ASSERT_GE(r.exit_code, 1) << r.err << r.out;
  json doc = json::parse(r.out);
  int brake_findings = 0;
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "power.brake") continue;
    ++brake_findings;
    EXPECT_EQ(f["gpus"].size(), 8u) << f.dump(2);
    ASSERT_EQ(f["per_gpu"].size(), 8u) << f.dump(2);
    EXPECT_EQ(f["per_gpu"][3]["gpu"], f["gpus"][3]);
    EXPECT_FALSE(f["per_gpu"][3]["evidence"].empty());
    EXPECT_EQ(f["title"].get<std::string>().rfind("8 of 8 GPUs are slowed by the power brake", 0), 0u)
        << f["title"];
  }
  EXPECT_EQ(brake_findings, 1) << doc["findings"].dump(1);
  ASSERT_EQ(doc["gpus"].size(), 8u);
  for (const auto& g : doc["gpus"]) {  // every GPU's verdict still names it
    EXPECT_NE(g["findings"].dump().find("power.brake"), std::string::npos) << g.dump();
  }

  auto text = RunGpudoctor(DiagnoseArgs(root, "text"), scenario, FoldedInEnglish());
  ASSERT_GE(text.exit_code, 1) << text.err;
  std::size_t brake_headings = 0, verdict_lines = 0;  // "[WARNING] title  power.brake", "GPU 3 ... power.brake"
  std::istringstream lines(text.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() < 12 || line.compare(line.size() - 12, 12, " power.brake") != 0) continue;
    if (line[0] == '[') ++brake_headings;
    if (line.rfind("GPU ", 0) == 0) ++verdict_lines;
  }
  EXPECT_EQ(brake_headings, 1u) << text.out;
  EXPECT_EQ(verdict_lines, 8u) << text.out;
  EXPECT_NE(text.out.find("8 of 8 GPUs are slowed by the power brake"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Evidence, per GPU:"), std::string::npos) << text.out;
  EXPECT_EQ(CountOf(text.out, "    - GPU "), 8u) << text.out;

  auto md = RunGpudoctor(DiagnoseArgs(root, "markdown"), scenario, FoldedInEnglish());
  ASSERT_GE(md.exit_code, 1) << md.err;
  EXPECT_EQ(CountOf(md.out, "— 8 of 8 GPUs are slowed by the power brake"), 1u) << md.out;
  EXPECT_EQ(CountOf(md.out, "\n- **GPU "), 8u) << md.out;

  auto html = RunGpudoctor(DiagnoseArgs(root, "html"), scenario, FoldedInEnglish());
  ASSERT_GE(html.exit_code, 1) << html.err;
  EXPECT_EQ(CountOf(html.out, R"(data-finding="power.brake")"), 1u);
  EXPECT_EQ(CountOf(html.out, "<details data-gpu="), 8u);
}

TEST(FoldedFindingsE2E, AnalyzeFoldsTheSameXidAndKeepsOthersApart) {
  TempDir dir;
  std::string log;
  for (const char* bus : {"3b", "5e", "86", "af"}) {
    log += std::string("[ 3605.120000] NVRM: Xid (PCI:0000:") + bus +
           ":00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n";
  }
  log += "[ 3700.000000] NVRM: Xid (PCI:0000:d8:00): 13, pid=4242, name=python3, Graphics SM Warp "
         "Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address\n";
  const std::string path = dir.Write("kern.log", log);
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "json", "--lang", "en", path}, FoldedInEnglish());
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;
  json doc = json::parse(r.out);
  int off_bus = 0;
  bool xid13_apart = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "xid.fallen_off_bus") {
      ++off_bus;
      EXPECT_EQ(f["gpus"], json({"0000:3b:00.0", "0000:5e:00.0", "0000:86:00.0", "0000:af:00.0"}));
      EXPECT_EQ(f["per_gpu"].size(), 4u);
      EXPECT_EQ(f["evidence"].size(), 4u);
      EXPECT_EQ(f["title"], "4 GPUs have fallen off the bus (Xid 79)");
    }
    if (f["xids"] == json({13})) xid13_apart = f["gpus"] == json({"0000:d8:00.0"});
  }
  EXPECT_EQ(off_bus, 1) << doc["findings"].dump(1);
  EXPECT_TRUE(xid13_apart) << doc["findings"].dump(1);
}

}  // namespace
}  // namespace gpudoctor::test
