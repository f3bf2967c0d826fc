// End-to-end over the driver generations from R450 to R610: `status`,
// `diagnose` and the agent (its /api/v1/status) on the fake NVML's
// "driver_profile" for each, with 8 and 7 processes on two GPUs (every pid
// must come back right, on the 32-byte _v3 records of 535.54.03 too) and a
// third GPU lost on its first call (named by its bus id). The 450 profile
// runs twice: on the full fake (missing calls answer FUNCTION_NOT_FOUND) and
// on the r450 library, which does not export them at all.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <csignal>
#include <map>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/fake_host.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

struct DriverCase {
  const char* profile;
  const char* library;
  const char* label;  // gtest name
};

void PrintTo(const DriverCase& c, std::ostream* os) { *os << c.profile << " on " << c.library; }

struct WantedProcess {
  unsigned pid;
  std::string name;
  std::optional<long long> used;
};

// GPU 0: 8 processes, 1..8 GiB; GPU 1: 7 processes, one without a usage.
std::vector<WantedProcess> WantedProcesses(int gpu) {
  std::vector<WantedProcess> out;
  const int n = gpu == 0 ? 8 : 7;
  for (int i = 0; i < n; ++i) {
    WantedProcess p;
    p.pid = static_cast<unsigned>((gpu == 0 ? 2001 : 3001) + i);
    p.name = (gpu == 0 ? "train-" : "infer-") + std::to_string(i);
    if (!(gpu == 1 && i == 4)) p.used = static_cast<long long>(i + 1) << (gpu == 0 ? 30 : 29);
    out.push_back(p);
  }
  return out;
}

std::string ProcessesJson(int gpu) {
  json list = json::array();
  for (const auto& p : WantedProcesses(gpu)) {
    list.push_back({{"pid", p.pid}, {"name", p.name},
                    {"used_memory_bytes", p.used ? json(*p.used) : json(nullptr)}});
  }
  return list.dump();
}

std::string ProfileScenario(const std::string& profile) {
  const std::string busy = R"("utilization_gpu_percent": 5, "utilization_memory_percent": 3,
      "memory_total_bytes": 85520809984, "memory_reserved_bytes": 552599552,
      "memory_free_bytes": 40000000000, "memory_used_bytes": 44968210432,
      "temperature_c": 55, "memory_temperature_c": 60, "power_draw_w": 120,
      "power_limit_w": 700, "retired_pages_sbe": 2, "retired_pages_dbe": 1,
      "clock_event_reasons": 1, "violation_power_ns": 1000, "violation_thermal_ns": 3000,
      "persistence_mode": true, "pstate": "P0")";
  return R"({"driver_profile": ")" + profile + R"(", "gpus": [
    {"name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "0000:18:00.0", )" + busy +
         R"(, "processes": )" + ProcessesJson(0) + R"(},
    {"name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "0000:19:00.0", )" + busy +
         R"(, "processes": )" + ProcessesJson(1) + R"(},
    {"name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "0000:af:00.0",
     "faults": [{"kind": "lost", "keeps_pci_info": true}]}]})";
}

void ExpectProcesses(const json& gpu, int index, const std::string& what) {
  SCOPED_TRACE(what + ", GPU " + std::to_string(index));
  const auto want = WantedProcesses(index);
  ASSERT_TRUE(gpu["processes"].is_array()) << gpu.dump();
  ASSERT_EQ(gpu["processes"].size(), want.size()) << gpu["processes"].dump();
  for (std::size_t i = 0; i < want.size(); ++i) {
    const json& p = gpu["processes"][i];
    EXPECT_EQ(p["pid"], want[i].pid) << p.dump();
    EXPECT_EQ(p["name"], want[i].name) << p.dump();
    if (want[i].used) {
      EXPECT_EQ(p["used_memory_bytes"], *want[i].used) << p.dump();
    } else {
      EXPECT_TRUE(p["used_memory_bytes"].is_null()) << p.dump();
    }
  }
}

// A quiet host with the three GPUs on its PCI bus.
void ProfileHost(const TempDir& root) {
  WriteQuietHost(root, {"0000:18:00.0", "0000:19:00.0", "0000:af:00.0"});
}

class DriverProfiles : public ::testing::TestWithParam<DriverCase> {
 protected:
  void SetUp() override {
    scenario_ = dir_.Write("scenario.json", ProfileScenario(GetParam().profile));
    ProfileHost(root_);
  }
  ProcessOptions Options() const {
    ProcessOptions o;
    o.timeout = std::chrono::seconds(90);
    o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
    return o;
  }
  ProcessResult Run(const std::vector<std::string>& args) const {
    ProcessOptions o = Options();
    o.env["GPUDOCTOR_NVML_LIBRARY"] = GetParam().library;  // RunGpudoctor's default, or r450
    std::vector<std::string> argv = {GPUDOCTOR_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    o.env["FAKE_NVML_SCENARIO"] = scenario_;
    o.env["NO_COLOR"] = "1";
    return RunProcess(argv, o);
  }
  TempDir dir_, root_, data_;
  std::string scenario_;
};

TEST_P(DriverProfiles, StatusListsEveryProcessAndNamesTheLostGpu) {
  auto r = Run({"status", "--json"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["driver_version"], GetParam().profile);
  EXPECT_FALSE(doc["cuda_driver_version"].is_null());
  ASSERT_EQ(doc["gpus"].size(), 3u);
  for (int i = 0; i < 2; ++i) {
    const json& g = doc["gpus"][i];
    EXPECT_EQ(g["state"], "ok") << g.dump();
    ExpectProcesses(g, i, "status");
    EXPECT_EQ(g["temperature_c"], 55);
    EXPECT_EQ(g["memory_temperature_c"], 60);
    EXPECT_EQ(g["retired_pages_sbe"], 2);
    EXPECT_EQ(g["retired_pages_dbe"], 1);
    EXPECT_EQ(g["violation_power_ns"], 1000);
    // Field 251 or 269 by version (never 575.51.02-580.76.05's preset profile at 269).
    EXPECT_EQ(g["violation_thermal_ns"], 3000);
    EXPECT_FALSE(g["clock_event_reasons"].is_null()) << g.dump();
    // NVML's used (v2), or v1's used + reserved on drivers without v2.
    const long long used = g["memory_used_bytes"].get<long long>();
    EXPECT_TRUE(used == 44968210432LL || used == 44968210432LL + 552599552LL) << used;
  }
  EXPECT_EQ(doc["gpus"][2]["state"], "lost");
  EXPECT_EQ(doc["gpus"][2]["pci_bus_id"], "0000:af:00.0");
}

TEST_P(DriverProfiles, DiagnoseNamesTheTopProcessesOfEachGpu) {
  auto r = Run({"diagnose", "--root", root_.path().string(), "--duration", "1s", "--interval",
                "500ms", "--lang", "en", "--format", "json"});
  ASSERT_TRUE(r.exit_code >= 0 && r.exit_code <= 2) << r.exit_code << r.err;
  json doc = json::parse(r.out);
  std::map<std::string, std::string> evidence;  // bus id -> process evidence
  std::map<std::string, double> counts;
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "utilization.low") continue;
    // One finding per GPU, or one folded across GPUs with each GPU's share.
    json shares = f["per_gpu"].empty() ? json::array({{{"gpu", f["gpus"][0]}, {"evidence", f["evidence"]}}})
                                       : f["per_gpu"];
    for (const auto& share : shares) {
      for (const auto& e : share["evidence"]) {
        const std::string text = e["text"];
        if (text.rfind("processes on the GPU: ", 0) != 0) continue;
        evidence[share["gpu"]] = text;
        counts[share["gpu"]] = e["value"].get<double>();
      }
    }
  }
  EXPECT_EQ(evidence["0000:18:00.0"],
            "processes on the GPU: `train-7` (pid 2008, 8 GiB), `train-6` (pid 2007, 7 GiB), "
            "`train-5` (pid 2006, 6 GiB)")
      << doc["findings"].dump(2);
  EXPECT_EQ(evidence["0000:19:00.0"],
            "processes on the GPU: `infer-6` (pid 3007, 3.5 GiB), `infer-5` (pid 3006, 3 GiB), "
            "`infer-3` (pid 3004, 2 GiB)")
      << doc["findings"].dump(2);
  EXPECT_EQ(counts["0000:18:00.0"], 8);
  EXPECT_EQ(counts["0000:19:00.0"], 7);
  bool lost_named = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "gpu.lost" && f["gpus"].dump().find("0000:af:00.0") != std::string::npos) {
      lost_named = true;
    }
  }
  EXPECT_TRUE(lost_named) << doc["findings"].dump(2);
}

TEST_P(DriverProfiles, AgentServesEveryProcess) {
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  ASSERT_GT(port, 0);
  auto env = FakeNvmlEnv(scenario_);
  env["GPUDOCTOR_NVML_LIBRARY"] = GetParam().library;
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data_.path().string(), "--root",
                     root_.path().string(), "--interval", "200ms", "--facts-every", "1h",
                     "--no-kernel-log", "--run-for", "60s", "--listen",
                     "127.0.0.1:" + std::to_string(port)}),
      env, (dir_.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  json doc;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    if (auto res = c.Get("/api/v1/status"); res && res->status == 200) {
      doc = json::parse(res->body, nullptr, false);
      if (doc.is_object() && doc["gpus"].size() == 3) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(doc.is_object() && doc["gpus"].size() == 3) << doc.dump();
  EXPECT_EQ(doc["driver_version"], GetParam().profile);
  ExpectProcesses(doc["gpus"][0], 0, "agent");
  ExpectProcesses(doc["gpus"][1], 1, "agent");
  EXPECT_EQ(doc["gpus"][2]["pci_bus_id"], "0000:af:00.0");
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1) << "the agent did not stop";
}

INSTANTIATE_TEST_SUITE_P(
    Generations, DriverProfiles,
    ::testing::Values(DriverCase{"450.248.02", FAKE_NVML_R450_LIBRARY, "r450_not_exported"},
                      DriverCase{"450.248.02", FAKE_NVML_LIBRARY, "r450"},
                      DriverCase{"460.32.03", FAKE_NVML_R450_LIBRARY, "r460_v1_only"},
                      DriverCase{"470.256.02", FAKE_NVML_LIBRARY, "r470"},
                      DriverCase{"510.108.03", FAKE_NVML_LIBRARY, "r510"},
                      DriverCase{"525.147.05", FAKE_NVML_LIBRARY, "r525"},
                      DriverCase{"535.43.02", FAKE_NVML_LIBRARY, "r535_43"},
                      DriverCase{"535.54.03", FAKE_NVML_LIBRARY, "r535_54"},
                      DriverCase{"535.86.05", FAKE_NVML_LIBRARY, "r535_86"},
                      DriverCase{"535.104.05", FAKE_NVML_LIBRARY, "r535_104"},
                      DriverCase{"550.163.01", FAKE_NVML_LIBRARY, "r550"},
                      DriverCase{"570.195.03", FAKE_NVML_LIBRARY, "r570"},
                      DriverCase{"575.51.02", FAKE_NVML_LIBRARY, "r575_51"},
                      DriverCase{"580.76.05", FAKE_NVML_LIBRARY, "r580_76"},
                      DriverCase{"580.95.05", FAKE_NVML_LIBRARY, "r580"},
                      DriverCase{"590.48.01", FAKE_NVML_LIBRARY, "r590"},
                      DriverCase{"610.43.02", FAKE_NVML_LIBRARY, "r610"}),
    [](const ::testing::TestParamInfo<DriverCase>& param_info) {
      return std::string(param_info.param.label);
    });

}  // namespace
}  // namespace gpudoctor::test
