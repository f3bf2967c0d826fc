// The end-to-end stress tests' scenario helpers and fixture: `gpudoctor
// stress` on the fake NVML and the fake libcuda (tests/fake_cuda), both
// driven by one scenario file that the test writes.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace stress_e2e {

using json = nlohmann::json;

// An H100-like GPU of the scenario at `bus`, idle, with the CUDA keys given.
inline json StressGpu(const std::string& bus, json cuda = json::object()) {
  json g = {{"pci_bus_id", bus},         {"name", "NVIDIA H100 80GB HBM3"},
            {"power_draw_w", 70},        {"power_limit_w", 700},
            {"temperature_c", 35},       {"clocks_sm_mhz", 1980},
            {"clocks_max_sm_mhz", 1980}, {"utilization_gpu_percent", 0},
            {"clock_event_reasons", 0},  {"processes", json::array()}};
  // Slow fake rates, so that a copy takes tens of milliseconds and timer
  // slack on a busy test machine stays small beside it.
  cuda.emplace("hbm_gbps", 100);
  cuda.emplace("p2p_gbps", 10);
  g["cuda"] = cuda;
  return g;
}

struct StressRun {
  ProcessResult process;
  json report;  // the JSON report, null when none was written
};

class StressE2e : public ::testing::Test {
 protected:
  std::string Scenario(const std::vector<json>& gpus, json top = json::object()) {
    top["gpus"] = json::array();
    for (const json& g : gpus) top["gpus"].push_back(g);
    return dir_.Write("scenario.json", top.dump());
  }

  ProcessOptions Options() {
    ProcessOptions o;
    o.env["GPUDOCTOR_STRESS_LOCK"] = (dir_.path() / "stress.lock").string();
    o.timeout = std::chrono::seconds(240);
    return o;
  }

  StressRun Run(const std::string& scenario, std::vector<std::string> extra, ProcessOptions o) {
    std::string report = (dir_.path() / "report.json").string();
    std::filesystem::remove(report);
    std::vector<std::string> args = {"stress", "--format", "json", "--output", report, "--lang", "en"};
    args.insert(args.end(), extra.begin(), extra.end());
    StressRun r;
    r.process = RunGpudoctor(args, scenario, o);
    std::ifstream in(report);
    if (in) r.report = json::parse(in, nullptr, false);
    return r;
  }
  StressRun Run(const std::string& scenario, std::vector<std::string> extra) {
    return Run(scenario, std::move(extra), Options());
  }

  // The report as `format` (text, markdown, html) writes it to --output;
  // empty when none was written.
  std::string RunReport(const std::string& scenario, const std::string& format, std::vector<std::string> extra,
                        ProcessResult& process) {
    std::string report = (dir_.path() / ("report." + format)).string();
    std::filesystem::remove(report);
    std::vector<std::string> args = {"stress", "--format", format, "--output", report, "--lang", "en"};
    args.insert(args.end(), extra.begin(), extra.end());
    process = RunGpudoctor(args, scenario, Options());
    std::ifstream in(report);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  TempDir dir_;
};

inline std::set<std::string> FindingIds(const json& doc) {
  std::set<std::string> ids;
  for (const auto& f : doc["findings"]) ids.insert(f["id"].get<std::string>());
  return ids;
}

inline const json* FindingFor(const json& doc, const std::string& id) {
  for (const auto& f : doc["findings"]) {
    if (f["id"] == id) return &f;
  }
  return nullptr;
}

}  // namespace stress_e2e

using stress_e2e::FindingFor;
using stress_e2e::FindingIds;
using stress_e2e::StressE2e;
using stress_e2e::StressGpu;
using stress_e2e::StressRun;

}  // namespace gpudoctor::test
