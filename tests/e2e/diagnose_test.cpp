// End-to-end: `gpudoctor diagnose` (and a bare `gpudoctor`) on the fake NVML
// over a fake /proc, /sys and /var/log tree, so that the machine running the
// tests does not leak into the verdict.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/fake_host.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace diagnose_e2e_local {

using nlohmann::json;

std::string Scenario(const std::string& name) {
  return std::string(TEST_DATA_DIR) + "/scenarios/" + name;
}

void HealthyHost(const TempDir& root, const std::vector<std::string>& bus_ids) {
  WriteQuietHost(root, bus_ids);
}

std::vector<std::string> Args(const TempDir& root, std::vector<std::string> extra) {
  std::vector<std::string> args = {"diagnose", "--root", root.path().string(), "--duration", "2s",
                                   "--interval", "500ms", "--lang", "en"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::set<std::string> FindingIds(const json& doc) {
  std::set<std::string> ids;
  for (const auto& f : doc["findings"]) ids.insert(f["id"].get<std::string>());
  return ids;
}

ProcessOptions NoConfig() {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  return o;
}

class DiagnoseHealthy : public ::testing::TestWithParam<const char*> {};

TEST_P(DiagnoseHealthy, FindsNothingToWarnAbout) {
  TempDir root;
  HealthyHost(root, {"0000:18:00.0", "0000:19:00.0"});
  auto r = RunGpudoctor(Args(root, {"--format", "json"}), Scenario(GetParam()), NoConfig());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "gpudoctor.report/v1");
  EXPECT_TRUE(doc["verdict"] == "ok" || doc["verdict"] == "info") << doc["verdict"];
  for (const auto& f : doc["findings"]) {
    EXPECT_TRUE(f["severity"] == "info") << f.dump(2);
  }
  ASSERT_EQ(doc["gpus"].size(), 2u);
  EXPECT_EQ(doc["gpus"][0]["pci_bus_id"], "0000:18:00.0");
  // 2 s every 500 ms: up to 5, but a late reading is skipped, not caught
  // up on, so a loaded machine takes fewer; never fewer than the first and
  // the last.
  EXPECT_GE(doc["gpus"][0]["readings"].get<int>(), 2);
  EXPECT_TRUE(doc["gpus"][0]["metrics"].contains("temperature_c"));
  EXPECT_EQ(doc["host"]["hostname"], "gpu-node-7");
  EXPECT_EQ(doc["host"]["kernel"], "6.1.0-18-amd64");
  EXPECT_EQ(doc["host"]["driver_version"], "550.90.07");
  EXPECT_EQ(doc["host"]["cuda_driver_version"], "12.4");
}

INSTANTIATE_TEST_SUITE_P(Scenarios, DiagnoseHealthy,
                         ::testing::Values("healthy_busy.json", "healthy_idle.json"));

TEST(DiagnoseE2E, TroubleScenarioIsCriticalWithEvidenceAndActions) {
  TempDir root;
  HealthyHost(root, {"0000:18:00.0", "0000:19:00.0", "0000:1a:00.0"});
  root.Write("var/log/kern.log",
             "Nov 29 10:00:01 gpu-node-7 kernel: [ 100.000001] NVRM: Xid (PCI:0000:1a:00): 79, "
             "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n");
  auto r = RunGpudoctor(Args(root, {"--format", "json", "--kernel-log",
                                    (root.path() / "var/log/kern.log").string(), "--since", "3650d"}),
                        Scenario("trouble.json"), NoConfig());
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["verdict"], "critical");
  auto ids = FindingIds(doc);
  for (const char* id : {"thermal.slowdown", "power.brake", "gpu.lost", "xid.fallen_off_bus"}) {
    EXPECT_TRUE(ids.count(id)) << id << " missing from " << doc["findings"].dump(1);
  }
  // Most severe first, every finding with evidence; the lost GPU is named.
  EXPECT_EQ(doc["findings"][0]["severity"], "critical");
  bool lost_named = false;
  for (const auto& f : doc["findings"]) {
    EXPECT_FALSE(f["evidence"].empty()) << f["id"];
    if (f["id"] == "gpu.lost") lost_named = f["gpus"][0] == "0000:1a:00.0";
  }
  EXPECT_TRUE(lost_named);
  EXPECT_EQ(doc["gpus"][2]["verdict"], "critical");
  ASSERT_FALSE(doc["events"].empty());
  EXPECT_EQ(doc["events"][0]["kind"], "xid");
  EXPECT_EQ(doc["events"][0]["code"], 79);
}

TEST(DiagnoseE2E, ChineseTextReport) {
  TempDir root;
  HealthyHost(root, {"0000:18:00.0", "0000:19:00.0", "0000:1a:00.0"});
  auto args = Args(root, {});
  args[8] = "zh";  // --lang zh
  auto r = RunGpudoctor(args, Scenario("trouble.json"), NoConfig());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("结论: 严重"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("处理建议"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Verdict"), std::string::npos) << r.out;
}

TEST(DiagnoseE2E, LanguageFollowsLangVariable) {
  TempDir root;
  HealthyHost(root, {"0000:18:00.0", "0000:19:00.0"});
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES"};
  o.env["LANG"] = "zh_CN.UTF-8";
  auto r = RunGpudoctor({"diagnose", "--root", root.path().string(), "--duration", "500ms"},
                        Scenario("healthy_busy.json"), o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("结论"), std::string::npos) << r.out;
}

TEST(DiagnoseE2E, MarkdownToAFile) {
  TempDir root;
  HealthyHost(root, {"0000:18:00.0", "0000:19:00.0", "0000:1a:00.0"});
  std::string out_file = (root.path() / "report.md").string();
  auto r = RunGpudoctor(Args(root, {"--format", "markdown", "--output", out_file}),
                        Scenario("trouble.json"), NoConfig());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  std::ifstream in(out_file);
  std::stringstream md;
  md << in.rdbuf();
  EXPECT_NE(md.str().find("# gpudoctor diagnose — gpu-node-7"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("**Verdict: CRITICAL**"), std::string::npos);
  EXPECT_NE(md.str().find("`gpu.lost`"), std::string::npos);
}

TEST(DiagnoseE2E, BareGpudoctorRunsDiagnose) {
  // No --root here: the real host is read, so only the shape is checked.
  auto r = RunGpudoctor({"--no-color"}, Scenario("healthy_busy.json"), NoConfig());
  EXPECT_TRUE(r.exit_code >= 0 && r.exit_code <= 2) << r.err;
  EXPECT_NE(r.out.find("gpudoctor diagnose"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU 0"), std::string::npos) << r.out;
}

TEST(DiagnoseE2E, ConfigThresholdsChangeTheVerdict) {
  TempDir root;
  HealthyHost(root, {"0000:18:00.0", "0000:19:00.0"});
  // 62 °C is fine by default; a site that wants 60 °C at most gets a finding.
  auto config = root.Write("config.toml", "[thresholds]\ntemperature_high_c = 60\n");
  auto r = RunGpudoctor(Args(root, {"--format", "json", "--config", config}),
                        Scenario("healthy_busy.json"), NoConfig());
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  auto ids = FindingIds(json::parse(r.out));
  EXPECT_TRUE(ids.count("thermal.high_temperature")) << r.out;
}

TEST(DiagnoseE2E, BadInputsAreOneLineErrorsWithExitThree) {
  TempDir root;
  HealthyHost(root, {});
  auto bad_config = root.Write("bad.toml", "[thresholds]\ntemperature_high_c = \"hot\"\n");
  std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"diagnose", "--duration", "10x"}, "--duration"},
      {{"diagnose", "--interval", "0s"}, "--interval"},
      {{"diagnose", "--since", "yesterday"}, "--since"},
      {{"diagnose", "--config", bad_config}, "bad.toml:2"},
      {{"diagnose", "--config", "/nonexistent/gpudoctor.toml"}, "/nonexistent/gpudoctor.toml"},
      {{"diagnose", "--lang", "fr"}, "--lang"},
      {{"diagnose", "--format", "yaml"}, "--format"},
      {{"diagnose", "--root", "/nonexistent/root"}, "--root"},
  };
  for (const auto& [args, needle] : cases) {
    auto r = RunGpudoctor(args, Scenario("healthy_busy.json"), NoConfig());
    EXPECT_EQ(r.exit_code, 3) << args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(DiagnoseE2E, NoDriverAndNoGpuCannotRun) {
  TempDir root;
  HealthyHost(root, {});
  ProcessOptions o = NoConfig();
  o.env["GPUDOCTOR_NVML_LIBRARY"] = "/nonexistent/libnvidia-ml.so.1";
  auto r = RunProcess({GPUDOCTOR_BINARY, "diagnose", "--root", root.path().string(), "--duration", "1s"}, o);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("no NVIDIA GPU or driver found"), std::string::npos) << r.err;
}

TEST(DiagnoseE2E, DriverMissingWithGpusOnTheBusIsCritical) {
  TempDir root;
  HealthyHost(root, {"0000:18:00.0"});
  ProcessOptions o = NoConfig();
  o.env["GPUDOCTOR_NVML_LIBRARY"] = "/nonexistent/libnvidia-ml.so.1";
  auto r = RunProcess({GPUDOCTOR_BINARY, "diagnose", "--root", root.path().string(), "--duration",
                       "1s", "--format", "json"}, o);
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;
  auto ids = FindingIds(json::parse(r.out));
  EXPECT_TRUE(ids.count("driver.not_loaded")) << r.out;
}

// A container without the kernel log: the Xids NVML delivers while diagnose
// samples still feed the Xid rules (they are not "not checked").
TEST(DiagnoseE2E, NvmlXidEventsCountWithoutTheKernelLog) {
  TempDir root;
  HealthyHost(root, {"0000:01:00.0"});  // no dev/kmsg, no journal below --root
  const std::string scenario =
      root.Write("xid.json", R"({"gpus": [{"faults": [{"kind": "xid", "code": 48, "at_s": 0.5}]}]})");
  auto r = RunGpudoctor(Args(root, {"--format", "json"}), scenario, NoConfig());
  ASSERT_GE(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out << r.err;
  EXPECT_TRUE(FindingIds(doc).count("xid.memory")) << doc["findings"].dump(1);
  for (const auto& n : doc["not_checked"]) EXPECT_NE(n["rule"], "xid.memory") << n.dump();
  std::size_t xids = 0;
  for (const auto& e : doc["events"]) xids += e["kind"] == "xid" && e["code"] == 48;
  EXPECT_EQ(xids, 1u) << doc["events"].dump(1);
}

// A GPU NVML counts but cannot open (lost before anything opened it) is one
// GPU with its bus id, found on the PCI bus: lost, not also "dropped".
TEST(DiagnoseE2E, GpuLostBeforeItWasOpenedHasItsBusIdFromThePciBus) {
  TempDir root;
  HealthyHost(root, {"0000:01:00.0", "0000:02:00.0"});
  const std::string scenario =
      root.Write("lost.json", R"({"gpus": [{}, {"faults": [{"kind": "lost"}]}]})");
  auto r = RunGpudoctor(Args(root, {"--format", "json"}), scenario, NoConfig());
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["gpus"].size(), 2u);
  EXPECT_EQ(doc["gpus"][1]["pci_bus_id"], "0000:02:00.0") << doc["gpus"][1].dump(1);
  bool lost_named = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "gpu.lost") lost_named = !f["gpus"].empty() && f["gpus"][0] == "0000:02:00.0";
  }
  EXPECT_TRUE(lost_named) << doc["findings"].dump(1);
  EXPECT_FALSE(FindingIds(doc).count("gpu.dropped")) << "one GPU, one finding: " << doc["findings"].dump(1);
}

}  // namespace diagnose_e2e_local
}  // namespace gpudoctor::test
