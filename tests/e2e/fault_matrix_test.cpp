// End-to-end fault matrix (issue 8): the real gpudoctor binary on the fake
// NVML, one case per driver fault. Each case says how gpudoctor must end
// (exit code, no signal, within the test's own generous bound), which GPUs it
// must still report and in which state, and what its message must name.
// Machines are noisy: no case asserts how long anything took, only that the
// test never had to kill gpudoctor.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

// Far above every deadline gpudoctor sets itself (--nvml-timeout 500ms, a 2 s
// diagnosis): reaching it means gpudoctor hung.
constexpr std::chrono::seconds kHangBound{30};

enum class Command { kStatus, kDiagnose, kAgentThenReport };

struct FaultCase {
  const char* name;
  Command command;
  std::string scenario;                      // JSON written by the test
  int exit_code;                             // of status/diagnose; of report for the agent
  std::vector<std::string> states;           // expected state of each GPU, in index order
  std::vector<std::string> names;            // what the messages must name
  void (*check)(const json& doc) = nullptr;  // more about the document, when needed
};

void PrintTo(const FaultCase& c, std::ostream* os) { *os << c.name; }

// The human messages of a run: stderr, plus from the JSON the GPUs' state
// details and field errors (status) or the findings' titles (reports).
std::string Messages(const ProcessResult& r, const json& doc) {
  std::string text = r.err;
  for (const auto& g : doc.value("gpus", json::array())) {
    text += "\n" + g.value("state_detail", std::string());
    const json errors = g.value("field_errors", json::object());
    for (const auto& [field, why] : errors.items()) {
      text += "\n" + field + ": " + why.get<std::string>();
    }
  }
  for (const auto& f : doc.value("findings", json::array())) {
    text += "\n" + f["title"].get<std::string>();
  }
  return text;
}

ProcessOptions Bounded() {
  ProcessOptions o;
  o.timeout = kHangBound;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  return o;
}

// Runs the case's command; the agent case runs `agent --run-for` first, then
// `report` over what it stored. Returns the last process and its JSON.
ProcessResult RunCase(const FaultCase& c, const TempDir& dir, const std::string& scenario,
                      std::string* agent_log) {
  const std::string root = (dir.path() / "root").string();
  dir.Write("root/proc/loadavg", "0.00 0.00 0.00 1/100 1\n");
  const std::vector<std::string> global = {"--nvml-timeout", "500ms"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.begin(), global.begin(), global.end());
    return args;
  };
  switch (c.command) {
    case Command::kStatus:
      return RunGpudoctor(with({"status", "--json"}), scenario, Bounded());
    case Command::kDiagnose:
      return RunGpudoctor(with({"diagnose", "--root", root, "--duration", "2s", "--interval",
                                "500ms", "--format", "json", "--lang", "en"}),
                          scenario, Bounded());
    case Command::kAgentThenReport: {
      const std::string data = (dir.path() / "data").string();
      auto agent = RunGpudoctor(
          with({"agent", "--data-dir", data, "--root", root, "--interval", "200ms", "--window",
                "2s", "--evaluate-every", "400ms", "--facts-every", "1h", "--no-listen",
                "--no-kernel-log", "--no-nvml-events", "--run-for", "3s"}),
          scenario, Bounded());
      *agent_log = agent.err + agent.out;
      EXPECT_FALSE(agent.timed_out) << "the agent did not stop after --run-for 3s";
      EXPECT_EQ(agent.exit_code, 0) << agent.err;
      return RunGpudoctor(
          {"report", "--data-dir", data, "--since", "10m", "--format", "json", "--lang", "en"}, "",
          Bounded());
    }
  }
  return {};
}

class FaultMatrixCase : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultMatrixCase, ReportsTheFaultKeepsTheOtherGpusAndEnds) {
  const FaultCase& c = GetParam();
  TempDir dir;
  std::string agent_log;
  auto r = RunCase(c, dir, dir.Write("scenario.json", c.scenario), &agent_log);
  ASSERT_FALSE(r.timed_out) << "gpudoctor still ran after " << kHangBound.count() << " s";
  ASSERT_EQ(r.signal, 0) << "gpudoctor died of signal " << r.signal << "\n" << r.err;
  EXPECT_EQ(r.exit_code, c.exit_code) << r.err << r.out;
  json doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
  ASSERT_EQ(doc["gpus"].size(), c.states.size()) << doc["gpus"].dump(1);
  for (std::size_t i = 0; i < c.states.size(); ++i) {
    EXPECT_EQ(doc["gpus"][i]["state"], c.states[i])
        << "GPU " << i << ": " << doc["gpus"][i].dump(1);
  }
  const std::string messages = Messages(r, doc) + agent_log;
  for (const auto& name : c.names) {
    EXPECT_NE(messages.find(name), std::string::npos) << name << " not in:\n" << messages;
  }
  if (c.check) c.check(doc);
  // A report is a document on stdout; stderr stays for at most one line.
  EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Three GPUs around the faulty one, which is always GPU 1. A GPU lost or
// hung from its first call never told its bus id: the findings name it by
// index only ("GPU 1 is lost"); one lost later keeps the bus id it had.
std::string AroundGpu1(const std::string& gpu1) {
  return R"({"driver_version": "550.90.07", "cuda_driver_version": 12040, "gpus": [
    {"name": "GPU A", "pci_bus_id": "0000:18:00.0", "temperature_c": 40, "utilization_gpu_percent": 10,
     "power_draw_w": 100, "power_limit_w": 300},
    )" + gpu1 +
         R"(,
    {"name": "GPU C", "pci_bus_id": "0000:1a:00.0", "temperature_c": 42, "utilization_gpu_percent": 10}]})";
}

std::string Faulty(const std::string& keys) {
  return R"({"name": "GPU B", "pci_bus_id": "0000:19:00.0", )" + keys + "}";
}

// GPU 1 answers but every optional call is NOT_SUPPORTED: nulls, no errors.
void AllNullNoErrors(const json& doc) {
  const json& g = doc["gpus"][1];
  EXPECT_EQ(g["uuid"], "GPU-bbbbbbbb-0000-0000-0000-000000000000");
  for (const char* f :
       {"temperature_c", "power_draw_w", "memory_used_bytes", "fan_speed_percent", "clocks_sm_mhz",
        "pstate", "ecc_volatile_uncorrected", "pcie_link_width_current"}) {
    EXPECT_TRUE(g[f].is_null()) << f << ": " << g[f];
  }
  EXPECT_TRUE(g["field_errors"].empty()) << g["field_errors"];
}

// Diagnose: nothing above info, none of it about GPU 1.
void NoFindingAboveInfo(const json& doc) {
  for (const auto& f : doc["findings"]) EXPECT_EQ(f["severity"], "info") << f.dump(1);
}

// The 255 °C is reported as a sensor fault, and no thermal rule judged it.
void OnlyTheImplausibleReadingWarning(const json& doc) {
  for (const auto& f : doc["findings"]) {
    if (f["severity"] == "info") continue;
    EXPECT_EQ(f["id"], "gpu.implausible_reading") << f.dump(1);
  }
}

void Gpu1TemperatureIgnored(const json& doc) {
  EXPECT_TRUE(doc["gpus"][1]["temperature_c"].is_null());
}
void Gpu1PowerIgnored(const json& doc) { EXPECT_TRUE(doc["gpus"][1]["power_draw_w"].is_null()); }
void Gpu1MemoryIgnored(const json& doc) {
  EXPECT_TRUE(doc["gpus"][1]["memory_used_bytes"].is_null());
  EXPECT_EQ(doc["gpus"][1]["memory_total_bytes"], 1073741824);
}
void Gpu1PowerKept(const json& doc) {
  EXPECT_DOUBLE_EQ(doc["gpus"][1]["power_draw_w"].get<double>(), 310.0);
  EXPECT_TRUE(doc["gpus"][1]["field_errors"].empty());
}
void Gpu1SlowButRead(const json& doc) { EXPECT_EQ(doc["gpus"][1]["temperature_c"], 43); }

const std::vector<std::string> kOkLostOk = {"ok", "lost", "ok"};
const std::vector<std::string> kOkHungOk = {"ok", "hung", "ok"};
const std::vector<std::string> kAllOk = {"ok", "ok", "ok"};
const std::vector<std::string> kAllHung = {"hung", "hung", "hung"};

std::vector<FaultCase> Cases() {
  const std::string lost_at_0 = Faulty(R"("faults": [{"kind": "lost"}])");
  const std::string lost_at_1 =
      Faulty(R"("temperature_c": 41, "faults": [{"at_s": 1, "kind": "lost"}])");
  const std::string hang_at_0 = Faulty(R"("faults": [{"kind": "hang"}])");
  const std::string hang_at_1 =
      Faulty(R"("temperature_c": 41, "faults": [{"at_s": 1, "kind": "hang"}])");
  // Slow from the start (the agent then reads each GPU on its own worker,
  // read_lanes.h), hung from 2 s: the hang happens on a parallel read.
  const std::string slow_then_hang = Faulty(
      R"("temperature_c": 41, "faults": [{"kind": "slow", "delay_ms": 10}, {"at_s": 2, "kind": "hang"}])");
  const std::string very_slow = Faulty(R"("faults": [{"kind": "slow", "delay_ms": 3000}])");
  const std::string slow =
      Faulty(R"("temperature_c": 43, "faults": [{"kind": "slow", "delay_ms": 5}])");
  const std::string all_unsupported =
      Faulty(R"("uuid": "GPU-bbbbbbbb-0000-0000-0000-000000000000")");
  std::string err_fields;
  for (const char* f : {"temperature_c", "power_draw_w", "utilization_gpu_percent", "clocks_sm_mhz",
                        "fan_speed_percent", "pstate"}) {
    err_fields += std::string(err_fields.empty() ? "" : ", ") + R"({"kind": "error", "field": ")" +
                  f + R"(", "error": "NVML_ERROR_UNKNOWN"})";
  }
  const std::string errors_everywhere =
      Faulty(R"("temperature_c": 41, "power_draw_w": 90, "utilization_gpu_percent": 5, )"
             R"("clocks_sm_mhz": 1400, "fan_speed_percent": 30, "pstate": 0, "faults": [)" +
             err_fields + "]");
  const std::string hot_255 = Faulty(R"("temperature_c": 255)");
  const std::string cold_0 = Faulty(R"("temperature_c": 0)");
  const std::string power_absurd = Faulty(R"("power_draw_w": 900, "power_limit_w": 300)");
  const std::string power_over = Faulty(R"("power_draw_w": 310, "power_limit_w": 300)");
  const std::string memory_absurd = Faulty(
      R"("memory_total_bytes": 1073741824, "memory_used_bytes": 4294967296, "memory_free_bytes": 2147483648)");
  return {
      {"LostBeforeSamplingStatus",
       Command::kStatus,
       AroundGpu1(lost_at_0),
       1,
       kOkLostOk,
       {"NVML_ERROR_GPU_IS_LOST"}},
      {"LostBeforeSamplingDiagnose",
       Command::kDiagnose,
       AroundGpu1(lost_at_0),
       2,
       kOkLostOk,
       {"GPU 1 is lost"}},
      {"LostDuringSamplingDiagnose",
       Command::kDiagnose,
       AroundGpu1(lost_at_1),
       2,
       kOkLostOk,
       {"GPU 1 (0000:19:00.0) is lost"}},
      {"LostDuringSamplingAgent",
       Command::kAgentThenReport,
       AroundGpu1(lost_at_1),
       2,
       kOkLostOk,
       {"GPU 1 (0000:19:00.0) is lost", "NVML_ERROR_GPU_IS_LOST"}},
      {"HangBeforeSamplingDiagnose",
       Command::kDiagnose,
       AroundGpu1(hang_at_0),
       2,
       kOkHungOk,
       {"GPU 1 does not answer"}},
      {"HangDuringSamplingDiagnose",
       Command::kDiagnose,
       AroundGpu1(hang_at_1),
       2,
       kOkHungOk,
       {"GPU 1 (0000:19:00.0) does not answer"}},
      {"HangDuringSamplingAgent",
       Command::kAgentThenReport,
       AroundGpu1(hang_at_1),
       2,
       kOkHungOk,
       {"GPU 1 (0000:19:00.0) does not answer", "within 500 ms"}},
      // The whole driver hangs: the first GPU's hang is found on the one
      // worker, the other two on a worker each (two deadlines, not three).
      {"WholeDriverHangsAgent",
       Command::kAgentThenReport,
       R"({"driver_version": "550.90.07", "gpus": [
         {"name": "GPU A", "pci_bus_id": "0000:18:00.0", "faults": [{"at_s": 1, "kind": "hang"}]},
         {"name": "GPU B", "pci_bus_id": "0000:19:00.0", "faults": [{"at_s": 1, "kind": "hang"}]},
         {"name": "GPU C", "pci_bus_id": "0000:1a:00.0", "faults": [{"at_s": 1, "kind": "hang"}]}]})",
       2,
       kAllHung,
       {"GPU 0 (0000:18:00.0) does not answer", "GPU 2 (0000:1a:00.0) does not answer"}},
      {"SlowThenHangAgent",
       Command::kAgentThenReport,
       AroundGpu1(slow_then_hang),
       2,
       kOkHungOk,
       {"GPU 1 (0000:19:00.0) does not answer", "within 500 ms"}},
      {"VerySlowCallsStatus",
       Command::kStatus,
       AroundGpu1(very_slow),
       1,
       kOkHungOk,
       {"within 500 ms"}},
      {"VerySlowCallsDiagnose",
       Command::kDiagnose,
       AroundGpu1(very_slow),
       2,
       kOkHungOk,
       {"GPU 1 does not answer"}},
      {"SlowCallsWithinTheDeadlineStatus",
       Command::kStatus,
       AroundGpu1(slow),
       0,
       kAllOk,
       {},
       Gpu1SlowButRead},
      {"NotSupportedForEveryOptionalFieldStatus",
       Command::kStatus,
       AroundGpu1(all_unsupported),
       0,
       kAllOk,
       {},
       AllNullNoErrors},
      {"NotSupportedForEveryOptionalFieldDiagnose",
       Command::kDiagnose,
       AroundGpu1(all_unsupported),
       0,
       kAllOk,
       {},
       NoFindingAboveInfo},
      {"UnknownErrorOnManyFieldsDiagnose",
       Command::kDiagnose,
       AroundGpu1(errors_everywhere),
       2,
       kAllOk,
       {"GPU 1 (0000:19:00.0) answers most queries with errors"}},
      {"Temperature255Status",
       Command::kStatus,
       AroundGpu1(hot_255),
       0,
       kAllOk,
       {"temperature_c: nvmlDeviceGetTemperature: 255 °C: implausible reading"},
       Gpu1TemperatureIgnored},
      {"Temperature255Diagnose",
       Command::kDiagnose,
       AroundGpu1(hot_255),
       1,
       kAllOk,
       {"GPU 1 (0000:19:00.0) reports impossible readings (temperature_c)"},
       OnlyTheImplausibleReadingWarning},
      {"Temperature0Status",
       Command::kStatus,
       AroundGpu1(cold_0),
       0,
       kAllOk,
       {"temperature_c: nvmlDeviceGetTemperature: 0 °C: implausible reading"},
       Gpu1TemperatureIgnored},
      {"PowerFarAboveTheLimitStatus",
       Command::kStatus,
       AroundGpu1(power_absurd),
       0,
       kAllOk,
       {"power_draw_w: nvmlDeviceGetPowerUsage: 900 W, limit 300 W: implausible reading"},
       Gpu1PowerIgnored},
      {"MoreMemoryUsedThanTotalStatus",
       Command::kStatus,
       AroundGpu1(memory_absurd),
       0,
       kAllOk,
       {"memory_used_bytes: nvmlDeviceGetMemoryInfo_v2: 4294967296 bytes used and 2147483648 "
        "free of 1073741824: implausible reading"},
       Gpu1MemoryIgnored},
      {"PowerSlightlyAboveTheLimitIsARealReadingStatus",
       Command::kStatus,
       AroundGpu1(power_over),
       0,
       kAllOk,
       {},
       Gpu1PowerKept},
  };
}

INSTANTIATE_TEST_SUITE_P(FaultMatrix, FaultMatrixCase, ::testing::ValuesIn(Cases()),
                         [](const auto& p) { return std::string(p.param.name); });

// nvmlInit fails with each documented error: status and diagnose cannot run
// (exit 3) and say so in one line naming the error and what to do about it.
struct InitCase {
  const char* error;   // without the NVML_ERROR_ prefix
  const char* advice;  // a word of the advice gpudoctor gives for it
};

class FaultMatrixInitError : public ::testing::TestWithParam<InitCase> {};

TEST_P(FaultMatrixInitError, CannotRunInOneLineNamingTheError) {
  const std::string name = std::string("NVML_ERROR_") + GetParam().error;
  TempDir dir;
  dir.Write("root/proc/loadavg", "0.00 0.00 0.00 1/100 1\n");
  auto scenario = dir.Write("s.json", R"({"init_error": ")" + name + R"(", "gpus": [{}, {}]})");
  auto status = RunGpudoctor({"status", "--json"}, scenario, Bounded());
  auto diagnose = RunGpudoctor({"diagnose", "--root", (dir.path() / "root").string(), "--duration",
                                "1s", "--format", "json"},
                               scenario, Bounded());
  for (const auto* r : {&status, &diagnose}) {
    ASSERT_EQ(r->signal, 0) << r->err;
    EXPECT_EQ(r->exit_code, 3) << r->err << r->out;
    EXPECT_EQ(std::count(r->err.begin(), r->err.end(), '\n'), 1) << r->err;
    EXPECT_NE(r->err.find("NVML initialisation failed"), std::string::npos) << r->err;
    EXPECT_NE(r->err.find(name), std::string::npos) << r->err;
    EXPECT_NE(r->err.find(GetParam().advice), std::string::npos) << r->err;
  }
  json doc = json::parse(status.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << status.out;
  EXPECT_EQ(doc["nvml_loaded"], false);
  EXPECT_NE(doc.value("error", std::string()).find(name), std::string::npos) << doc.dump();
  EXPECT_TRUE(diagnose.out.empty()) << diagnose.out;
}

INSTANTIATE_TEST_SUITE_P(
    FaultMatrixInit, FaultMatrixInitError,
    ::testing::Values(
        InitCase{"UNINITIALIZED", "dmesg"}, InitCase{"INVALID_ARGUMENT", "dmesg"},
        InitCase{"NOT_SUPPORTED", "dmesg"}, InitCase{"NO_PERMISSION", "as root"},
        InitCase{"ALREADY_INITIALIZED", "dmesg"}, InitCase{"NOT_FOUND", "dmesg"},
        InitCase{"INSUFFICIENT_SIZE", "dmesg"}, InitCase{"INSUFFICIENT_POWER", "power cables"},
        InitCase{"DRIVER_NOT_LOADED", "modprobe nvidia"}, InitCase{"TIMEOUT", "dmesg"},
        InitCase{"IRQ_ISSUE", "dmesg"}, InitCase{"LIBRARY_NOT_FOUND", "dmesg"},
        InitCase{"FUNCTION_NOT_FOUND", "dmesg"}, InitCase{"CORRUPTED_INFOROM", "dmesg"},
        InitCase{"GPU_IS_LOST", "dmesg"}, InitCase{"RESET_REQUIRED", "dmesg"},
        InitCase{"OPERATING_SYSTEM", "dmesg"}, InitCase{"LIB_RM_VERSION_MISMATCH", "reboot"},
        InitCase{"IN_USE", "dmesg"}, InitCase{"MEMORY", "dmesg"}, InitCase{"NO_DATA", "dmesg"},
        InitCase{"VGPU_ECC_NOT_SUPPORTED", "dmesg"}, InitCase{"INSUFFICIENT_RESOURCES", "dmesg"},
        InitCase{"UNKNOWN", "dmesg"}),
    [](const auto& p) { return std::string(p.param.error); });

// nvmlInit that never returns: gpudoctor gives up at its deadline.
TEST(FaultMatrixE2E, HungInitDiagnoseEndsAtTheDeadline) {
  TempDir dir;
  dir.Write("root/proc/loadavg", "0.00 0.00 0.00 1/100 1\n");
  auto scenario = dir.Write("s.json", R"({"init_delay_ms": 600000, "gpus": [{}]})");
  auto r = RunGpudoctor({"--nvml-timeout", "500ms", "diagnose", "--root",
                         (dir.path() / "root").string(), "--duration", "1s"},
                        scenario, Bounded());
  ASSERT_FALSE(r.timed_out) << "gpudoctor hung in nvmlInit";
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("did not answer nvmlInit_v2 within 500 ms"), std::string::npos) << r.err;
}

std::set<std::string> BusIds(const json& doc) {
  std::set<std::string> ids;
  for (const auto& g : doc["gpus"]) ids.insert(g["pci_bus_id"].get<std::string>());
  return ids;
}

// Three GPUs in one run, two in the next (GPU B gone): each run reports what
// it sees, with the right identities; --expected-gpus makes the loss a
// finding; the agent's store keeps both runs and the report names all three.
TEST(FaultMatrixE2E, GpuCountChangesBetweenRuns) {
  TempDir dir;
  dir.Write("root/proc/loadavg", "0.00 0.00 0.00 1/100 1\n");
  dir.Write("root/sys/bus/pci/devices/.keep", "");
  const std::string root = (dir.path() / "root").string();
  const std::string data = (dir.path() / "data").string();
  auto three = dir.Write("three.json", AroundGpu1(Faulty(R"("temperature_c": 41)")));
  auto two = dir.Write("two.json", R"({"gpus": [
      {"name": "GPU A", "pci_bus_id": "0000:18:00.0", "temperature_c": 40},
      {"name": "GPU C", "pci_bus_id": "0000:1a:00.0", "temperature_c": 42}]})");
  const std::set<std::string> all = {"0000:18:00.0", "0000:19:00.0", "0000:1a:00.0"};
  const std::set<std::string> remaining = {"0000:18:00.0", "0000:1a:00.0"};

  auto first = RunGpudoctor({"status", "--json"}, three, Bounded());
  EXPECT_EQ(BusIds(json::parse(first.out)), all) << first.err;
  auto second = RunGpudoctor({"status", "--json"}, two, Bounded());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  json doc = json::parse(second.out);
  EXPECT_EQ(BusIds(doc), remaining);
  EXPECT_EQ(doc["gpus"][1]["name"], "GPU C");
  EXPECT_EQ(doc["gpus"][1]["index"], 1);

  auto diagnose = RunGpudoctor(
      {"diagnose", "--root", root, "--duration", "1s", "--format", "json", "--expected-gpus", "3"},
      two, Bounded());
  EXPECT_EQ(diagnose.exit_code, 2) << diagnose.err;
  bool dropped = false;
  const json diagnosis = json::parse(diagnose.out);
  for (const auto& f : diagnosis["findings"]) dropped |= f["id"] == "gpu.dropped";
  EXPECT_TRUE(dropped) << diagnose.out;

  for (const auto& scenario : {three, two}) {
    auto agent = RunGpudoctor(
        {"agent", "--data-dir", data, "--root", root, "--interval", "200ms", "--facts-every", "1h",
         "--no-listen", "--no-kernel-log", "--no-nvml-events", "--run-for", "1s"},
        scenario, Bounded());
    ASSERT_EQ(agent.exit_code, 0) << agent.err;
  }
  auto report = RunGpudoctor(
      {"report", "--data-dir", data, "--since", "10m", "--format", "json", "--lang", "en"}, "",
      Bounded());
  ASSERT_EQ(report.signal, 0) << report.err;
  EXPECT_EQ(BusIds(json::parse(report.out)), all) << report.out;
}

}  // namespace
}  // namespace gpudoctor::test
