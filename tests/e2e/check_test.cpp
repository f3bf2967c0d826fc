// End-to-end: `gpudoctor check` answering from a fabricated agent state file
// (without any NVML), falling back to a short diagnosis on the fake NVML when
// the file is stale, the unknown answer without NVML or agent, and the
// deploy/slurm health-check script with a fake scontrol on PATH.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "core/time_format.h"
#include "support/background_process.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace check_e2e_local {

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
        std::string_view(" .,:_/+=@%-[]").find(c) == std::string_view::npos) {
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
  // The cause, whole; NVML's detail (the library's path, dlerror) goes to
  // stderr instead of being cut off in the middle of the path.
  EXPECT_EQ(OnlyLine(r.out), "unknown: no NVIDIA driver found");
  EXPECT_NE(r.err.find("no-such-libnvidia-ml.so.1"), std::string::npos) << r.err;
}

TEST_F(CheckE2E, StaleStateFallsBackToADiagnosis) {
  WriteState(seconds{600});
  auto healthy = RunGpudoctor(Args({"--npd"}), Scenario("healthy_busy.json"));
  EXPECT_EQ(healthy.exit_code, 0) << healthy.err << healthy.out;
  EXPECT_EQ(OnlyLine(healthy.out), "2 GPUs: healthy (diagnosis)");
  EXPECT_NE(healthy.err.find("ignoring the agent state"), std::string::npos) << healthy.err;
  // The state was 600 s old when written; a slow machine may take a few
  // seconds more to read it: the age printed is 600 s or a little over.
  std::smatch age;
  ASSERT_TRUE(std::regex_search(healthy.err, age, std::regex("last sample ([0-9]+) s ago")))
      << healthy.err;
  EXPECT_GE(std::stoi(age[1]), 600) << healthy.err;
  EXPECT_LE(std::stoi(age[1]), 660) << healthy.err;

  auto trouble = RunGpudoctor(Args({"--slurm"}), Scenario("trouble.json"));
  EXPECT_EQ(trouble.exit_code, 1) << trouble.err << trouble.out;
  const std::string reason = OnlyLine(trouble.out);
  EXPECT_EQ(reason.substr(reason.size() - 12), " [gpudoctor]") << reason;
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

// The health-check script with a fake scontrol on PATH that records its calls
// in scontrol.log and answers `show node` with the given state and reason.
class SlurmScriptE2E : public CheckE2E {
 protected:
  void FakeNode(const std::string& state, const std::string& reason) {
    bin_.Write("scontrol",
               "#!/bin/bash\n"
               "echo \"$*\" >> " + (bin_.path() / "scontrol.log").string() + "\n"
               "if [ \"$1\" = show ]; then\n"
               "  echo 'NodeName=gpu-node-7 Arch=x86_64 CoresPerSocket=32'\n"
               "  echo '   State=" + state + " ThreadsPerCore=2 TmpDisk=0 Weight=1'\n"
               "  echo '   Reason=" + reason + "'\n"
               "fi\n");
    std::filesystem::permissions(bin_.path() / "scontrol", std::filesystem::perms::owner_all);
  }

  std::string ScontrolCalls() const {
    std::ifstream in(bin_.path() / "scontrol.log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  ProcessResult RunScript(std::vector<std::string> script_args, bool dry_run = false) {
    ProcessOptions o;
    o.env["GPUDOCTOR"] = GPUDOCTOR_BINARY;
    o.env["GPUDOCTOR_NVML_LIBRARY"] = (data_.path() / "no-such-libnvidia-ml.so.1").string();
    o.env["GPUDOCTOR_ENV_FILE"] = (bin_.path() / "default-gpudoctor").string();
    o.env["PATH"] = bin_.path().string() + ":/usr/bin:/bin";
    o.env["NODENAME"] = "gpu-node-7";
    if (dry_run) o.env["DRY_RUN"] = "1";
    o.unset_env = {"FAKE_NVML_SCENARIO"};
    auto args = Args(std::move(script_args));
    std::vector<std::string> argv = {"/bin/bash", kSlurmScript};
    argv.insert(argv.end(), args.begin() + 1, args.end());  // the script adds `check --slurm`
    return RunProcess(argv, o);
  }

  TempDir bin_;
};

TEST_F(SlurmScriptE2E, DryRunPrintsWhatItDoesAndTheDrainCommand) {
  WriteState(seconds{1});
  FakeNode("IDLE", "(null)");
  auto r = RunScript({}, true);
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_EQ(r.out,
            "gpudoctor-healthcheck: draining node gpu-node-7: GPU 1 lost 0000:19:00.0 [gpudoctor]\n"
            "scontrol update nodename=gpu-node-7 state=drain reason=\"GPU 1 lost 0000:19:00.0 "
            "[gpudoctor]\"\n");
  EXPECT_EQ(ScontrolCalls(), "show node gpu-node-7\n");  // dry run: no update

  // Healthy: nothing to drain, nothing printed.
  WriteState(seconds{1}, true);
  auto ok = RunScript({}, true);
  EXPECT_EQ(ok.exit_code, 0) << ok.err << ok.out;
  EXPECT_TRUE(ok.out.empty()) << ok.out;
}

TEST_F(SlurmScriptE2E, DrainsAnUndrainedNode) {
  WriteState(seconds{1});
  FakeNode("IDLE", "(null)");
  auto r = RunScript({});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_EQ(ScontrolCalls(),
            "show node gpu-node-7\n"
            "update nodename=gpu-node-7 state=drain reason=GPU 1 lost 0000:19:00.0 [gpudoctor]\n");
  EXPECT_NE(r.out.find("draining node gpu-node-7"), std::string::npos) << r.out;
}

TEST_F(SlurmScriptE2E, NeverOverwritesAnOperatorsReason) {
  WriteState(seconds{1});
  FakeNode("IDLE+DRAIN", "RMA ticket 1234, do not resume [root@2026-12-01T10:00:00]");
  auto r = RunScript({});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_EQ(ScontrolCalls(), "show node gpu-node-7\n");
  EXPECT_NE(r.out.find("RMA ticket 1234, do not resume"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("leaving it alone"), std::string::npos) << r.out;

  FakeNode("DOWN+DRAIN", "maintenance [slurm@2026-12-01T10:00:00]");
  std::filesystem::remove(bin_.path() / "scontrol.log");
  RunScript({});
  EXPECT_EQ(ScontrolCalls(), "show node gpu-node-7\n");
}

TEST_F(SlurmScriptE2E, ReplacesItsOwnOlderReason) {
  WriteState(seconds{1});
  FakeNode("IDLE+DRAIN", "gpudoctor: gpu.lost: GPU 1 0000:19:00.0 is lo [slurm@2026-12-01T10:00:00]");
  RunScript({});
  EXPECT_NE(ScontrolCalls().find("update nodename=gpu-node-7 state=drain"), std::string::npos)
      << ScontrolCalls();
  // Its own current reason is left as it is: Slurm keeps the reason's time.
  std::filesystem::remove(bin_.path() / "scontrol.log");
  FakeNode("IDLE+DRAIN", "GPU 1 lost 0000:19:00.0 [gpudoctor] [slurm@2026-12-01T10:00:00]");
  auto r = RunScript({});
  EXPECT_EQ(ScontrolCalls(), "show node gpu-node-7\n");
  EXPECT_NE(r.out.find("already drained"), std::string::npos) << r.out;
}

// HealthCheckProgram takes no arguments: check's options come from the
// environment file.
TEST_F(SlurmScriptE2E, ReadsCheckOptionsFromTheEnvironmentFile) {
  WriteState(seconds{1});
  FakeNode("IDLE", "(null)");
  bin_.Write("default-gpudoctor",
             "# gpudoctor\nGPUDOCTOR_CHECK_ARGS=\"--condition GPUThrottled\"\n");
  auto r = RunScript({});
  // Only clock slowdowns judged: healthy, nothing drained, so no update.
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(ScontrolCalls(), "show node gpu-node-7\n");
}

// Healthy again (a latched fault acknowledged): gpudoctor's own drain ends;
// an operator's, or a drain without a reason, stays.
TEST_F(SlurmScriptE2E, ResumesOnlyItsOwnDrainWhenHealthyAgain) {
  WriteState(seconds{1}, true);
  FakeNode("IDLE+DRAIN", "GPU 1 lost 0000:19:00.0 [gpudoctor] [slurm@2026-12-01T10:00:00]");
  auto r = RunScript({});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(ScontrolCalls(), "show node gpu-node-7\nupdate nodename=gpu-node-7 state=resume\n");
  EXPECT_NE(r.out.find("healthy again; resuming it"), std::string::npos) << r.out;

  for (const char* reason :
       {"RMA ticket 1234, do not resume [root@2026-12-01T10:00:00]", "(null)"}) {
    std::filesystem::remove(bin_.path() / "scontrol.log");
    FakeNode("IDLE+DRAIN", reason);
    auto left = RunScript({});
    EXPECT_EQ(left.exit_code, 0) << left.err << left.out;
    EXPECT_EQ(ScontrolCalls(), "show node gpu-node-7\n") << reason;
    EXPECT_TRUE(left.out.empty()) << left.out;
  }
  // A dry run prints the resume instead.
  std::filesystem::remove(bin_.path() / "scontrol.log");
  FakeNode("IDLE+DRAIN", "GPU 1 lost 0000:19:00.0 [gpudoctor] [slurm@2026-12-01T10:00:00]");
  auto dry = RunScript({}, true);
  EXPECT_NE(dry.out.find("scontrol update nodename=gpu-node-7 state=resume\n"), std::string::npos)
      << dry.out;
  EXPECT_EQ(ScontrolCalls(), "show node gpu-node-7\n");
}

TEST_F(SlurmScriptE2E, LogsChecksOwnMessages) {
  WriteState(seconds{600});  // stale: check says so on stderr, then cannot see GPUs
  FakeNode("IDLE", "(null)");
  auto r = RunScript({});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("gpudoctor-healthcheck: check: gpudoctor: ignoring the agent state"),
            std::string::npos)
      << r.err;
  EXPECT_NE(ScontrolCalls().find("reason=GPUs not visible, no NVML [gpudoctor]"),
            std::string::npos)
      << ScontrolCalls();
}

// Every GPU hangs before it tells its bus id: eight GPUs, not one merged
// (they used to be keyed by their empty bus id), so nothing is "missing";
// and one finding per GPU, 8 in all, not 16 (each GPU's gpu.lost finding,
// listing the empty bus id, was not matched to its GPU, and a second one was
// added for it), with a Slurm reason that names the first GPU by its index.
TEST_F(CheckE2E, EveryGpuHungCountsEveryGpuOnce) {
  std::string gpus;
  for (int i = 0; i < 8; ++i) {
    gpus += std::string(i ? "," : "") + "{\"name\": \"NVIDIA H100 80GB HBM3\", \"pci_bus_id\": \"0000:" +
            std::to_string(18 + i) + ":00.0\", \"faults\": [{\"kind\": \"hang\"}]}";
  }
  const std::string scenario =
      data_.Write("all_hung.json", "{\"driver_version\": \"550.90.07\", \"gpus\": [" + gpus + "]}");
  auto r = RunGpudoctor(Args({"--expected-gpus", "8", "--condition", "GPUDropped"}), scenario);
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;  // critical
  EXPECT_EQ(r.out.find("of 8 expected GPUs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU 0 does not answer"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(+7 more)"), std::string::npos) << r.out;
  auto slurm = RunGpudoctor(Args({"--slurm"}), scenario);
  EXPECT_EQ(slurm.exit_code, 1) << slurm.err << slurm.out;
  EXPECT_EQ(OnlyLine(slurm.out), "GPU 0 lost +7 more, reboot_node [gpudoctor]");
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

}  // namespace check_e2e_local
}  // namespace gpudoctor::test
