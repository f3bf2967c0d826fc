// End-to-end: `gpudoctor analyze` on a mix of files, some unreadable.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fixtures.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace analyze_e2e_local {

using nlohmann::json;

ProcessOptions English() {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  return o;
}

const char* kXml = R"(<?xml version="1.0" ?>
<nvidia_smi_log>
  <timestamp>Sun Nov 29 10:00:00 2026</timestamp>
  <driver_version>550.90.07</driver_version>
  <cuda_version>12.4</cuda_version>
  <attached_gpus>1</attached_gpus>
  <gpu id="00000000:3B:00.0">
    <product_name>NVIDIA H100 80GB HBM3</product_name>
    <uuid>GPU-11111111-2222-3333-4444-555555555555</uuid>
    <pci><pci_bus_id>00000000:3B:00.0</pci_bus_id></pci>
    <fb_memory_usage><total>81559 MiB</total><used>1000 MiB</used><free>80559 MiB</free></fb_memory_usage>
    <utilization><gpu_util>0 %</gpu_util><memory_util>0 %</memory_util></utilization>
    <temperature><gpu_temp>35 C</gpu_temp></temperature>
  </gpu>
</nvidia_smi_log>
)";

const char* kKernelLog =
    "Nov 29 10:00:05 node kernel: [ 500.123456] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
    "name=<unknown>, GPU has fallen off the bus.\n";

TEST(AnalyzeE2E, MixOfFilesWithBadOnesStillAnalysesTheGoodOnes) {
  TempDir dir;
  auto xml = dir.Write("dump.xml", kXml);
  auto log = dir.Write("kern.log", kKernelLog);
  auto garbage = dir.Write("garbage.bin", std::string("\x00\x01\x02\xff\xfe", 5));
  std::string missing = (dir.path() / "missing.log").string();
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "json", xml, log, garbage, missing,
                       dir.path().string()},
                      English());
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.err.find(garbage + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(missing + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir.path().string() + ":"), std::string::npos) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["command"], "analyze");
  EXPECT_EQ(doc["host"]["source"], "files");
  ASSERT_EQ(doc["inputs"].size(), 5u);
  EXPECT_EQ(doc["inputs"][0]["kind"], "nvidia-smi-xml");
  EXPECT_EQ(doc["inputs"][1]["kind"], "kernel-log");
  EXPECT_EQ(doc["inputs"][2]["ok"], false);
  ASSERT_EQ(doc["gpus"].size(), 1u);
  EXPECT_EQ(doc["gpus"][0]["pci_bus_id"], "0000:3b:00.0");
  EXPECT_EQ(doc["gpus"][0]["verdict"], "critical");
  bool fallen = false;
  for (const auto& f : doc["findings"]) fallen = fallen || f["id"] == "xid.fallen_off_bus";
  EXPECT_TRUE(fallen) << doc["findings"].dump(1);
  // Live-only evidence is listed as not checked, with the reason.
  bool host_not_checked = false;
  for (const auto& n : doc["not_checked"]) {
    if (n["rule"] == "host.memory_pressure") {
      host_not_checked = n["reason"].get<std::string>().find("analysed files") != std::string::npos;
    }
  }
  EXPECT_TRUE(host_not_checked) << doc["not_checked"].dump(1);
}

TEST(AnalyzeE2E, TextAndMarkdownReports) {
  TempDir dir;
  auto log = dir.Write("kern.log", kKernelLog);
  auto text = RunProcess({GPUDOCTOR_BINARY, "analyze", "--no-color", log}, English());
  EXPECT_EQ(text.exit_code, 2) << text.err;
  EXPECT_NE(text.out.find("Verdict: CRITICAL"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("xid.fallen_off_bus"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("kern.log:1"), std::string::npos) << text.out;
  auto md = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "markdown", log}, English());
  EXPECT_EQ(md.exit_code, 2) << md.err;
  EXPECT_NE(md.out.find("# gpudoctor analyze"), std::string::npos) << md.out;
  auto zh = RunProcess({GPUDOCTOR_BINARY, "analyze", "--lang", "zh", "--no-color", log}, English());
  EXPECT_NE(zh.out.find("结论: 严重"), std::string::npos) << zh.out;
}

TEST(AnalyzeE2E, NothingReadableIsExitThree) {
  TempDir dir;
  auto empty = dir.Write("empty.log", "");
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", empty, "/nonexistent/x.log"}, English());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("empty.log"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/x.log"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("none of the given files could be analysed"), std::string::npos);
  auto none = RunProcess({GPUDOCTOR_BINARY, "analyze"}, English());
  EXPECT_EQ(none.exit_code, 3) << none.err;
}

TEST(AnalyzeE2E, RealBugReportExcerptAndXmlTogether) {
  auto dir = FixtureDir("");
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << dir << " is missing";
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "json",
                       (dir / "other/bugreport-rtx3060-laptop-arch-2022-header-excerpt.log").string(),
                       (dir / "kernel/akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log").string()},
                      English());
  ASSERT_EQ(r.exit_code, 2) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["host"]["hostname"], "nomade007");
  EXPECT_EQ(doc["inputs"][0]["kind"], "nvidia-bug-report");
}

}  // namespace analyze_e2e_local
}  // namespace gpudoctor::test
