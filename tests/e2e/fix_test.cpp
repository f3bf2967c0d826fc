// End-to-end: `gpudoctor fix` on the fake NVML. The fake records every setter
// call in FAKE_NVML_CALL_LOG and applies the value, so these tests check what
// reached the driver and that the re-diagnosis sees the change.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/zh_check.h"

namespace gpudoctor::test {
namespace fix_e2e_local {

using nlohmann::json;

std::string Scenario(const std::string& name) {
  return std::string(TEST_DATA_DIR) + "/scenarios/" + name;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A temporary world for one run: a fake root (only what names the host), a
// data directory and the fake NVML's call log.
class FixE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_.Write("proc/sys/kernel/hostname", "gpu-node-7\n");
    root_.Write("var/log/kern.log", "");
  }

  ProcessResult Fix(std::vector<std::string> extra, const std::string& scenario,
                    const std::string& stdin_text = "") {
    std::vector<std::string> args = {"fix",        "--root",     root_.path().string(),
                                     "--duration", "500ms",      "--interval",
                                     "250ms",      "--data-dir", DataDir()};
    bool has_lang = std::find(extra.begin(), extra.end(), "--lang") != extra.end();
    if (!has_lang) extra.insert(extra.end(), {"--lang", "en"});
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessOptions o;
    o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
    o.env["FAKE_NVML_CALL_LOG"] = CallLogPath();
    o.stdin_text = stdin_text;
    return RunGpudoctor(args, scenario, o);
  }

  std::string DataDir() const { return (work_.path() / "data").string(); }
  std::string CallLogPath() const { return (work_.path() / "calls.log").string(); }
  std::vector<std::string> Calls() const { return Lines(ReadFile(CallLogPath())); }
  std::vector<std::string> Audit() const { return Lines(ReadFile(DataDir() + "/fix-audit.log")); }

  // fix_config.json with one fault added to GPU 0.
  std::string WithFault(const std::string& field, const std::string& error) {
    json doc = json::parse(ReadFile(Scenario("fix_config.json")));
    doc["gpus"][0]["faults"] =
        json::array({{{"kind", "error"}, {"field", field}, {"error", error}}});
    return work_.Write("fault.json", doc.dump());
  }

  TempDir root_;
  TempDir work_;
};

const std::vector<std::string> kAllFourCalls = {
    "nvmlDeviceSetComputeMode gpu=0 mode=0 -> 0",
    "nvmlDeviceSetPersistenceMode gpu=0 mode=1 -> 0",
    "nvmlDeviceSetPowerManagementLimit gpu=0 limit_mw=300000 -> 0",
    "nvmlDeviceResetApplicationsClocks gpu=0 -> 0",
};

TEST_F(FixE2E, PlanWithoutApplyChangesNothing) {
  auto r = Fix({}, Scenario("fix_config.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (const char* want :
       {"nvidia-smi -i 0 -pm 1", "nvidia-smi -i 0 -pl 300", "nvidia-smi -i 0 -rac",
        "nvidia-smi -i 0 -c DEFAULT", "power_limit_w 250 W -> 300 W", "gpudoctor fix --apply"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find("GPU 1 ("), std::string::npos) << r.out;  // GPU 1 is fine
  // Nothing was applied, and the plan does not say it was.
  EXPECT_EQ(r.out.find("Applied by gpudoctor"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Steps gpudoctor can apply itself:"), std::string::npos) << r.out;
  EXPECT_TRUE(Calls().empty());
  EXPECT_FALSE(std::filesystem::exists(DataDir()));
}

TEST_F(FixE2E, ApplySendsTheRightValuesAuditsAndTheFindingsAreGone) {
  auto r = Fix({"--apply", "--yes"}, Scenario("fix_config.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(Calls(), kAllFourCalls);
  for (const char* want :
       {"now off -> on; finding config.persistence_mode gone",
        "now 250 W -> 300 W; finding config.power_limit gone",
        "now 1200/2619 MHz -> 1755/2619 MHz; finding config.application_clocks gone",
        "now Prohibited -> Default; finding config.compute_mode gone",
        "Result: 4 applied, 0 failed, 0 skipped, 0 not run"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 4u);
  json power = json::parse(audit[2]);
  EXPECT_EQ(power["gpu"], 0);
  EXPECT_EQ(power["pci_bus_id"], "0000:18:00.0");
  EXPECT_EQ(power["uuid"], "GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(power["finding"], "config.power_limit");
  EXPECT_EQ(power["field"], "power_limit_w");
  EXPECT_EQ(power["before"], "250 W");
  EXPECT_EQ(power["after"], "300 W");
  EXPECT_EQ(power["result"], "ok");
  EXPECT_FALSE(power["time"].get<std::string>().empty());
}

TEST_F(FixE2E, NoPermissionStopsTheRunAndIsReported) {
  auto r = Fix({"--apply", "--yes"}, WithFault("set_power_limit", "NVML_ERROR_NO_PERMISSION"));
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(
      r.out.find("FAILED: nvmlDeviceSetPowerManagementLimit on GPU 0: Insufficient Permissions"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("not run: an earlier step failed"), std::string::npos) << r.out;
  // The application clocks come after the power limit: never called.
  EXPECT_EQ(Calls(), (std::vector<std::string>{kAllFourCalls[0], kAllFourCalls[1],
                                               "nvmlDeviceSetPowerManagementLimit gpu=0 "
                                               "limit_mw=300000 -> 4"}));
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 3u);
  json failed = json::parse(audit[2]);
  EXPECT_EQ(failed["after"], "250 W");
  EXPECT_NE(failed["result"].get<std::string>().find("Insufficient Permissions"),
            std::string::npos);
}

TEST_F(FixE2E, GpuWithProcessesIsSkippedUnlessForced) {
  auto r = Fix({"--apply", "--yes"}, Scenario("fix_busy.json"));
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("1 compute process(es) on this GPU (4242 python3)"), std::string::npos)
      << r.out;
  EXPECT_TRUE(Calls().empty());

  auto forced = Fix({"--apply", "--yes", "--force"}, Scenario("fix_busy.json"));
  EXPECT_EQ(forced.exit_code, 0) << forced.err << forced.out;
  EXPECT_EQ(Calls(), kAllFourCalls);
}

TEST_F(FixE2E, ApplyAsNonRootIsOneLineExit3) {
  const std::string setpriv = "/usr/bin/setpriv";  // util-linux
  if (!std::filesystem::exists(setpriv)) GTEST_SKIP() << setpriv << " is not installed";
  ProcessOptions o;
  o.env["GPUDOCTOR_NVML_LIBRARY"] = FAKE_NVML_LIBRARY;
  o.env["FAKE_NVML_SCENARIO"] = Scenario("fix_config.json");
  auto r = RunProcess({setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                       GPUDOCTOR_BINARY, "fix", "--apply", "--yes"},
                      o);
  EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("fix --apply needs root"), std::string::npos) << r.err;
}

TEST_F(FixE2E, ConfirmationOtherThanYesChangesNothing) {
  auto no = Fix({"--apply"}, Scenario("fix_config.json"), "n\n");
  EXPECT_EQ(no.exit_code, 0) << no.err;
  EXPECT_NE(no.err.find("Apply 4 step(s)? [y/N]"), std::string::npos) << no.err;
  EXPECT_NE(no.err.find("nothing changed"), std::string::npos) << no.err;
  EXPECT_TRUE(Calls().empty());
  // Declining leaves no empty audit log behind.
  const std::filesystem::path log = std::filesystem::path(DataDir()) / "fix-audit.log";
  EXPECT_FALSE(std::filesystem::exists(log));

  auto yes = Fix({"--apply"}, Scenario("fix_config.json"), "yes\n");
  EXPECT_EQ(yes.exit_code, 0) << yes.err << yes.out;
  EXPECT_EQ(Calls().size(), 4u);
  ASSERT_TRUE(std::filesystem::exists(log));
  const auto size_after_yes = std::filesystem::file_size(log);
  EXPECT_GT(size_after_yes, 0u);
  // A later declined run leaves the existing log as it was.
  auto no_again = Fix({"--apply"}, Scenario("fix_config.json"), "n\n");
  EXPECT_EQ(no_again.exit_code, 0) << no_again.err;
  ASSERT_TRUE(std::filesystem::exists(log));
  EXPECT_EQ(std::filesystem::file_size(log), size_after_yes);
}

TEST_F(FixE2E, PowerLimitOptionIsCheckedThenSent) {
  auto bad = Fix({"--apply", "--yes", "--power-limit", "400"}, Scenario("fix_config.json"));
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_EQ(Lines(bad.err).size(), 1u) << bad.err;
  EXPECT_NE(
      bad.err.find("--power-limit 400 W: outside the range of GPU 0 (0000:18:00.0), 100-350 W"),
      std::string::npos)
      << bad.err;
  EXPECT_TRUE(Calls().empty());

  auto ok =
      Fix({"--apply", "--yes", "--power-limit", "320", "--gpu", "0"}, Scenario("fix_config.json"));
  EXPECT_EQ(ok.exit_code, 0) << ok.err << ok.out;
  auto calls = Calls();
  EXPECT_NE(std::find(calls.begin(), calls.end(),
                      "nvmlDeviceSetPowerManagementLimit gpu=0 limit_mw=320000 -> 0"),
            calls.end());
}

TEST_F(FixE2E, GpuSelectionLeavesOtherGpusAlone) {
  auto r = Fix({"--apply", "--yes", "--gpu", "1"}, Scenario("fix_config.json"));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.err.find("No step to apply"), std::string::npos) << r.err;
  EXPECT_TRUE(Calls().empty());
  auto bad = Fix({"--gpu", "7"}, Scenario("fix_config.json"));
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("--gpu 7"), std::string::npos) << bad.err;
}

TEST_F(FixE2E, FromReportTakesItsFindingsAndLiveValues) {
  std::string report = work_.Write("report.json",
                                   R"({"schema": "gpudoctor.report/v1", "findings": [
          {"id": "config.persistence_mode", "severity": "info", "gpus": ["0000:18:00.0"]}]})");
  auto r = Fix({"--from-report", report, "--format", "json"}, Scenario("fix_config.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "gpudoctor.fix/v1");
  EXPECT_EQ(doc["source"]["file"], report);
  ASSERT_EQ(doc["steps"].size(), 1u);
  EXPECT_EQ(doc["steps"][0]["action"], "persistence_mode_on");
  EXPECT_EQ(doc["steps"][0]["before"], "off");

  std::string broken =
      work_.Write("broken.json", "{\"schema\": \"gpudoctor.report/v1\", \"findings\": [");
  auto bad = Fix({"--from-report", broken}, Scenario("fix_config.json"));
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_EQ(Lines(bad.err).size(), 1u) << bad.err;
  EXPECT_NE(bad.err.find(broken + ": not valid JSON"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty());
}

TEST_F(FixE2E, ChinesePlanAndResults) {
  auto plan = Fix({"--lang", "zh"}, Scenario("fix_config.json"));
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("修复计划"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("开启持久模式"), std::string::npos) << plan.out;
  EXPECT_EQ(gpudoctor::testing::EnglishRuns(plan.out), std::vector<std::string>{}) << plan.out;

  auto applied = Fix({"--lang", "zh", "--apply", "--yes"},
                     WithFault("set_persistence_mode", "NVML_ERROR_NO_PERMISSION"));
  EXPECT_EQ(applied.exit_code, 1) << applied.err;
  EXPECT_NE(applied.out.find("失败"), std::string::npos) << applied.out;
  EXPECT_EQ(gpudoctor::testing::EnglishRuns(applied.out), std::vector<std::string>{})
      << applied.out;
}

}  // namespace fix_e2e_local
}  // namespace gpudoctor::test
