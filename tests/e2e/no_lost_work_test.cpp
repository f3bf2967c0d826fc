// End-to-end, no lost work: an --output that cannot be written stops the
// command before its long work starts (on issue 28's main, `stress -o
// /nonexistent/x.html` ran the whole test and then lost it), and Ctrl-C in
// `diagnose` prints the diagnosis of what was sampled so far, marked
// interrupted (it printed nothing).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "e2e/stress_e2e.h"
#include "support/background_process.h"
#include "support/fake_host.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace no_lost_work_test {

using nlohmann::json;

int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

using NoLostWork = stress_e2e::StressE2e;

TEST_F(NoLostWork, StressRefusesAnUnwritableOutputBeforeItStarts) {
  auto scenario = Scenario({stress_e2e::StressGpu("0000:01:00.0")});
  for (const std::string& out : std::vector<std::string>{"/nonexistent/x.html", dir_.path().string()}) {
    auto r = RunGpudoctor({"stress", "--tests", "power", "--duration", "20s", "--format", "html", "-o", out},
                          scenario, Options());
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_EQ(Lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("will run"), std::string::npos) << "the test started: " << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(NoLostWorkE2E, EveryOutputOptionIsCheckedFirst) {
  TempDir dir;
  const std::string bad = "/nonexistent/dir/out.json";
  const std::string log = dir.Write("kern.log", "");
  const std::vector<std::vector<std::string>> commands = {
      {"diagnose", "--duration", "30s", "-o", bad},
      {"analyze", "--output", bad, log},
      {"report", "--data-dir", dir.path().string(), "-o", bad},
      {"fleet", "--prometheus", "http://127.0.0.1:9", "-o", bad},
  };
  for (const auto& args : commands) {
    auto r = RunGpudoctor(args, "");
    EXPECT_EQ(r.exit_code, 3) << args[0] << ": " << r.err;
    EXPECT_EQ(Lines(r.err), 1) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(bad), std::string::npos) << args[0] << ": " << r.err;
  }
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Waits (bounded) for the process to end; its wait status, -1 if it did not.
int Reap(BackgroundProcess& p) { return p.Wait(std::chrono::seconds(30)); }

// Waits (bounded) until process `pid` catches SIGINT (the SigCgt mask of
// /proc/PID/status), i.e. diagnose is sampling and will answer Ctrl-C.
bool CatchesSigint(pid_t pid, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("SigCgt:", 0) != 0) continue;
      const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
      if (mask & (1ULL << (SIGINT - 1))) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(NoLostWorkE2E, CtrlCInDiagnosePrintsWhatWasSampledMarkedInterrupted) {
  TempDir root;
  TempDir dir;
  WriteQuietHost(root, {"0000:18:00.0"});
  const std::string scenario = dir.Write(
      "s.json", R"({"gpus": [{"pci_bus_id": "0000:18:00.0", "name": "NVIDIA H100 80GB HBM3",
                   "temperature_c": 50, "utilization_gpu_percent": 70}]})");
  for (const std::string format : {"json", "text"}) {
    const std::string out = (dir.path() / ("report." + format)).string();
    BackgroundProcess diagnose(GpudoctorArgv({"diagnose", "--root", root.path().string(), "--duration", "10m",
                                              "--interval", "200ms", "--lang", "en", "--format", format,
                                              "-o", out}),
                               FakeNvmlEnv(scenario), (dir.path() / ("log." + format)).string());
    ASSERT_TRUE(diagnose.started());
    ASSERT_TRUE(CatchesSigint(diagnose.pid(), std::chrono::seconds(30)));
    std::this_thread::sleep_for(std::chrono::seconds(1));  // a few samples
    diagnose.Signal(SIGINT);
    const int status = Reap(diagnose);
    ASSERT_NE(status, -1) << "diagnose did not stop on SIGINT";
    ASSERT_TRUE(WIFEXITED(status)) << "killed by SIGINT: nothing printed";
    EXPECT_LE(WEXITSTATUS(status), 2) << ReadAll((dir.path() / ("log." + format)).string());
    const std::string report = ReadAll(out);
    if (format == "json") {
      json doc = json::parse(report, nullptr, false);
      ASSERT_FALSE(doc.is_discarded()) << report;
      ASSERT_TRUE(doc["interrupted"].is_object()) << report.substr(0, 600);
      EXPECT_EQ(doc["interrupted"]["planned_s"], 600.0);
      EXPECT_LT(doc["interrupted"]["sampled_s"].get<double>(), 600.0);
      ASSERT_EQ(doc["gpus"].size(), 1u);
      EXPECT_EQ(doc["gpus"][0]["pci_bus_id"], "0000:18:00.0");
    } else {
      EXPECT_NE(report.find("Interrupted after"), std::string::npos) << report;
      EXPECT_NE(report.find("0000:18:00.0"), std::string::npos) << report;
    }
  }
}

}  // namespace no_lost_work_test
}  // namespace gpudoctor::test
