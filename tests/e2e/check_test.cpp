// End-to-end: `gpudoctor check` answering from a fabricated agent state file
// (without any NVML), falling back to a short diagnosis on the fake NVML when
// the file is stale, the unknown answer without NVML or agent, and the
// deploy/slurm health-check script in dry-run mode.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/time_format.h"
#include "support/background_process.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;
using std::chrono::seconds;

std::string Scenario(const std::string& name) {
  return std::string(TEST_DATA_DIR) + "/scenarios/" + name;
}

const std::string kSlurmScript =
    std::string(TEST_DATA_DIR) + "/../../deploy/slurm/gpudoctor-healthcheck.sh";

bool SlurmSafe(const std::string& line) {
  for (char c : line) {
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view(" .,:_/+=@%-").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// The single line of `out` (which must end in one newline).
std::string OnlyLine(const std::string& out) {
  EXPECT_FALSE(out.empty());
  EXPECT_EQ(out.find('\n'), out.size() - 1) << out;
  return out.substr(0, out.find('\n'));
}

class CheckE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_.Write("proc/sys/kernel/hostname", "gpu-node-7\n");
    root_.Write("var/log/kern.log", "");
  }

  // An agent state written `age` ago by this (live) process, with GPU 1
  // fallen off the bus unless `healthy`.
  void WriteState(seconds age, bool healthy = false) {
    const auto now = std::chrono::system_clock::now();
    json gpu0 = {{"index", 0},      {"pci_bus_id", "0000:18:00.0"},
                 {"uuid", "GPU-a"}, {"name", "NVIDIA H100 80GB HBM3"},
                 {"state", "ok"},   {"state_detail", ""}};
    json gpu1 = gpu0;
    gpu1["index"] = 1;
    gpu1["pci_bus_id"] = "0000:19:00.0";
    json finding = {{"id", "xid.fallen_off_bus"},
                    {"severity", "critical"},
                    {"gpus", json::array({"0000:19:00.0"})},
                    {"title", "GPU 1 (0000:19:00.0) fell off the bus — Xid 79"},
                    {"since", FormatRfc3339(now - age - seconds{60})}};
    json state = {{"schema", "gpudoctor.agent-state/v1"},
                  {"pid", static_cast<int>(::getpid())},
                  {"started_at", FormatRfc3339(now - seconds{3600})},
                  {"last_sample_at", FormatRfc3339(now - age)},
                  {"interval_ms", 1000},
                  {"nvml_loaded", true},
                  {"nvml_error", ""},
                  {"verdict", "critical"},
                  {"gpus", json::array({gpu0, gpu1})},
                  {"active_findings", healthy ? json::array() : json::array({finding})}};
    data_.Write("agent-state.json", state.dump(2));
  }

  std::vector<std::string> Args(std::vector<std::string> extra) const {
    std::vector<std::string> args = {"check",  "--data-dir",          data_.path().string(),
                                     "--root", root_.path().string(), "--duration",
                                     "2s",     "--interval",          "500ms"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // Without any NVML library: a driver call would fail.
  ProcessResult RunWithoutNvml(std::vector<std::string> extra) const {
    ProcessOptions o;
    o.env["GPUDOCTOR_NVML_LIBRARY"] = (data_.path() / "no-such-libnvidia-ml.so.1").string();
    o.unset_env = {"FAKE_NVML_SCENARIO"};
    std::vector<std::string> argv = {GPUDOCTOR_BINARY};
    for (auto& a : Args(std::move(extra))) argv.push_back(std::move(a));
    return RunProcess(argv, o);
  }

  TempDir root_;
  TempDir data_;
};

TEST_F(CheckE2E, FreshAgentStateAnswersWithoutNvml) {
  WriteState(seconds{1});
  auto r = RunWithoutNvml({"--npd", "--condition", "GPUHealthy"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const std::string line = OnlyLine(r.out);
  EXPECT_LE(line.size(), 80u);
  EXPECT_EQ(line.rfind("xid.fallen_off_bus: GPU 1 (0000:19:00.0) fell off the bus", 0), 0u) << line;
  for (unsigned char c : line) EXPECT_LT(c, 0x80) << line;
  EXPECT_TRUE(r.err.empty()) << r.err;
  // The same state is fine for a condition it does not concern.
  auto throttled = RunWithoutNvml({"--npd", "--condition", "GPUThrottled"});
  EXPECT_EQ(throttled.exit_code, 0) << throttled.err << throttled.out;
  EXPECT_EQ(OnlyLine(throttled.out), "2 GPUs: no clock slowdown (agent state)");
}

TEST_F(CheckE2E, NoNvmlAndNoAgentIsUnknownForNpd) {
  auto r = RunWithoutNvml({"--npd"});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  const std::string line = OnlyLine(r.out);
  EXPECT_EQ(line.rfind("unknown: ", 0), 0u) << line;
  EXPECT_LE(line.size(), 80u);
}

TEST_F(CheckE2E, StaleStateFallsBackToADiagnosis) {
  WriteState(seconds{600});
  auto healthy = RunGpudoctor(Args({"--npd"}), Scenario("healthy_busy.json"));
  EXPECT_EQ(healthy.exit_code, 0) << healthy.err << healthy.out;
  EXPECT_EQ(OnlyLine(healthy.out), "2 GPUs: healthy (diagnosis)");
  EXPECT_NE(healthy.err.find("ignoring the agent state"), std::string::npos) << healthy.err;
  EXPECT_NE(healthy.err.find("last sample 600 s ago"), std::string::npos) << healthy.err;

  auto trouble = RunGpudoctor(Args({"--slurm"}), Scenario("trouble.json"));
  EXPECT_EQ(trouble.exit_code, 1) << trouble.err << trouble.out;
  const std::string reason = OnlyLine(trouble.out);
  EXPECT_EQ(reason.rfind("gpudoctor: ", 0), 0u) << reason;
  EXPECT_LE(reason.size(), 100u);
  EXPECT_TRUE(SlurmSafe(reason)) << reason;
}

TEST_F(CheckE2E, MalformedStateIsIgnoredWithANote) {
  data_.Write("agent-state.json", "{\"pid\": 1, \"gpus\": ");
  auto r = RunWithoutNvml({"--npd"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("agent-state.json: not a JSON object"), std::string::npos) << r.err;
}

TEST_F(CheckE2E, HumanSummaryListsEveryCondition) {
  WriteState(seconds{1});
  auto r = RunWithoutNvml({});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;  // a critical finding, as diagnose
  for (const char* c :
       {"GPUHealthy: problem", "GPUDropped: problem", "GPUThrottled: ok", "XidErrors: problem"}) {
    EXPECT_NE(r.out.find(c), std::string::npos) << c << " in " << r.out;
  }
}

TEST_F(CheckE2E, BadOptionIsUnknownInNpdMode) {
  auto r = RunWithoutNvml({"--npd", "--condition", "GPUHappy"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(OnlyLine(r.out).find("GPUHappy"), std::string::npos);
}

TEST_F(CheckE2E, SlurmScriptDryRunPrintsTheDrainCommand) {
  WriteState(seconds{1});
  ProcessOptions o;
  o.env["GPUDOCTOR"] = GPUDOCTOR_BINARY;
  o.env["GPUDOCTOR_NVML_LIBRARY"] = (data_.path() / "no-such-libnvidia-ml.so.1").string();
  o.env["DRY_RUN"] = "1";
  o.env["NODENAME"] = "gpu-node-7";
  auto args = Args({});
  std::vector<std::string> argv = {"/bin/bash", kSlurmScript};
  argv.insert(argv.end(), args.begin() + 1, args.end());  // the script adds `check --slurm`
  auto r = RunProcess(argv, o);
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const std::string line = OnlyLine(r.out);
  const std::string prefix =
      "scontrol update nodename=gpu-node-7 state=drain reason=\"gpudoctor: xid.fallen_off_bus: GPU "
      "1 "
      "0000:19:00.0 fell off the bus - Xid 79\"";
  EXPECT_EQ(line, prefix);

  // Healthy: nothing to drain, nothing printed.
  WriteState(seconds{1}, true);
  auto ok = RunProcess(argv, o);
  EXPECT_EQ(ok.exit_code, 0) << ok.err << ok.out;
  EXPECT_TRUE(ok.out.empty()) << ok.out;
}

TEST_F(CheckE2E, ReadsTheStateARealAgentWrites) {
  root_.Write("proc/sys/kernel/random/boot_id", "6b1d0a0e-0000-4000-8000-000000000002\n");
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data_.path().string(), "--root", root_.path().string(),
                     "--interval", "200ms", "--window", "2s", "--evaluate-every", "400ms",
                     "--no-listen", "--no-kernel-log"}),
      FakeNvmlEnv(Scenario("agent_trouble.json")), (data_.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  // GPU 2 is lost 3 s into the scenario; wait (at most 30 s) for the agent to
  // record it.
  const auto state_path = data_.path() / "agent-state.json";
  bool lost = false;
  for (int i = 0; i < 150 && !lost; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::ifstream in(state_path);
    std::stringstream text;
    text << in.rdbuf();
    lost = text.str().find("\"gpu.lost\"") != std::string::npos;
  }
  ASSERT_TRUE(lost) << "the agent never recorded gpu.lost";
  auto r = RunWithoutNvml({"--npd", "--condition", "GPUDropped"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const std::string line = OnlyLine(r.out);
  EXPECT_EQ(line.rfind("gpu.lost: GPU 2 (0000:1a:00.0) is lost", 0), 0u) << line;
  EXPECT_LE(line.size(), 80u);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

}  // namespace
}  // namespace gpudoctor::test
