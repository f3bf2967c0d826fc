// `fleet` and `report --prometheus` over a 6 h history built from real
// dcgm-exporter captures (../shared/fixtures/dcgm-exporter/, every
// generation of labels; tests/data/capture_history.py says which machine
// does what), loaded once per suite into a real Prometheus (promtool blocks)
// and a real VictoriaMetrics (its import API).
#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/httplib_config.h"
#include "support/fixtures.h"
#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/tsdb_servers.h"

namespace gpudoctor::test {
namespace fleet_captures_test_ns {

using nlohmann::json;

const std::string kCaptureHistory = std::string(TEST_DATA_DIR) + "/capture_history.py";

std::string CaptureRfc3339(long s) {
  const std::time_t t = s;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

class FleetCapturesE2e : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(kPrometheusBinary) || !std::filesystem::exists(kPromtoolBinary) ||
        !std::filesystem::exists(kVictoriaMetricsBinary)) {
      skip_ = "prometheus / victoria-metrics not installed (scripts/bootstrap.sh installs them)";
      return;
    }
    if (!std::filesystem::exists(FixtureDir("dcgm-exporter") / "SOURCES.md") &&
        !std::filesystem::exists(FixtureDir("dcgm-exporter") / "02_v2.x_dcgm-exporter-58.prom")) {
      skip_ = "the dcgm-exporter captures are not in " + FixtureDir("dcgm-exporter").string();
      return;
    }
    const long now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    end_s_ = now - 120 - (now - 120) % 60;
    dir_ = new TempDir();
    const std::string om = Write("openmetrics", "history.om");
    const std::string jsonl = Write("vm", "history.jsonl");
    if (om.empty() || jsonl.empty()) {
      error_ = "tests/data/capture_history.py failed";
      return;
    }
    const std::string tsdb = (dir_->path() / "tsdb").string();
    error_ = CreateBlocksFromOpenMetrics(om, tsdb);
    if (!error_.empty()) return;
    prometheus_ = TsdbServer::Prometheus({}, "60s", tsdb).release();
    vm_ = TsdbServer::VictoriaMetrics({}, "60s").release();
    if (!prometheus_->ready() || !vm_->ready()) {
      error_ = "engine not ready: " + prometheus_->Log() + vm_->Log();
      return;
    }
    std::ifstream in(jsonl);
    std::stringstream body;
    body << in.rdbuf();
    httplib::Client c(vm_->url());
    c.set_read_timeout(60);
    auto imported = c.Post("/api/v1/import", body.str(), "application/json");
    if (!imported || imported->status != 204) {
      error_ = "VictoriaMetrics import: " + (imported ? imported->body : std::string("no answer"));
      return;
    }
    // Imported rows become searchable after VictoriaMetrics' next flush.
    auto flushed = c.Get("/internal/force_flush");
    if (!flushed || flushed->status != 200) error_ = "VictoriaMetrics flush failed";
  }
  static void TearDownTestSuite() {
    delete prometheus_;
    delete vm_;
    delete dir_;
    prometheus_ = nullptr;
    vm_ = nullptr;
    dir_ = nullptr;
    fleets_.clear();
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_EQ(error_, "");
  }

  static std::string Write(const std::string& format, const std::string& name) {
    ProcessOptions o;
    o.timeout = std::chrono::minutes(2);
    auto r = RunProcess(
        {"/usr/bin/python3", kCaptureHistory, "--fixtures", FixtureDir("dcgm-exporter").string(),
         "--end", std::to_string(end_s_), "--format", format},
        o);
    if (r.exit_code != 0) return "";
    return dir_->Write(name, r.out);
  }

  // (engine, URL) of both engines.
  static std::vector<std::pair<std::string, std::string>> Engines() {
    return {{"prometheus", prometheus_->url()}, {"victoria-metrics", vm_->url()}};
  }

  // `fleet --format json` over the last `hours` h of the history (cached).
  static const json& Fleet(const std::string& url, int hours) {
    const std::string key = url + " " + std::to_string(hours);
    auto it = fleets_.find(key);
    if (it != fleets_.end()) return it->second;
    auto r = RunGpudoctor(
        {"fleet", "--prometheus", url, "--from", CaptureRfc3339(end_s_ - hours * 3600L), "--to",
         CaptureRfc3339(end_s_), "--match", "{job=\"dcgm-exporter\"}", "--format", "json"},
        "");
    json j = json::parse(r.out, nullptr, false);
    if (!j.is_object()) j = json{{"error", r.err + r.out.substr(0, 2000)}};
    return fleets_[key] = j;
  }

  static json Report(const std::string& url, const std::string& node, int* exit_code = nullptr) {
    auto r = RunGpudoctor(
        {"report", "--prometheus", url, "--node", node, "--from", CaptureRfc3339(end_s_ - 6 * 3600),
         "--to", CaptureRfc3339(end_s_), "--match", "{job=\"dcgm-exporter\"}", "--format", "json"},
        "");
    if (exit_code) *exit_code = r.exit_code;
    json j = json::parse(r.out, nullptr, false);
    return j.is_object() ? j : json{{"error", r.err}};
  }

  static inline TempDir* dir_ = nullptr;
  static inline TsdbServer* prometheus_ = nullptr;
  static inline TsdbServer* vm_ = nullptr;
  static inline long end_s_ = 0;
  static inline std::string skip_;
  static inline std::string error_;
  static inline std::map<std::string, json> fleets_;
};

const json* CaptureNode(const json& fleet, const std::string& name) {
  for (const auto& n : fleet.at("nodes")) {
    if (n["node"] == name) return &n;
  }
  return nullptr;
}

int GpusOf(const json& fleet, const std::string& node) {
  int n = 0;
  for (const auto& g : fleet.at("gpus")) n += g["node"] == node ? 1 : 0;
  return n;
}

const json* GpuByIndex(const json& fleet, const std::string& node, const std::string& gpu) {
  for (const auto& g : fleet.at("gpus")) {
    if (g["node"] == node && g["gpu"] == gpu) return &g;
  }
  return nullptr;
}

bool NodeHasFinding(const json& node, const std::string& id) {
  for (const auto& f : node.at("findings")) {
    if (f["id"] == id) return true;
  }
  return false;
}

// Nine machines, each one node whatever its labels: the restarted
// exporter's two pod names and addresses, lowercase hostname, no Hostname.
TEST_F(FleetCapturesE2e, OneNodePerMachineWhateverItsLabelsAndAcrossARestart) {
  for (const auto& [engine, url] : Engines()) {
    SCOPED_TRACE(engine);
    json fleet = Fleet(url, 6);
    ASSERT_TRUE(fleet.contains("summary")) << fleet.dump().substr(0, 2000);
    EXPECT_EQ(fleet["summary"]["nodes"], 9) << fleet["nodes"].dump().substr(0, 3000);
    EXPECT_EQ(fleet["summary"]["gpus"], 21);
    // The restarted exporter: one node under its current pod name, its old
    // name and both addresses among its names, reporting now.
    const json* restarted = CaptureNode(fleet, "dcgm-exporter-q7x2m");
    ASSERT_NE(restarted, nullptr) << fleet["nodes"].dump().substr(0, 3000);
    const std::string names = restarted->value("names", json::array()).dump();
    for (const char* n : {"dcgm-exporter-lcxpl", "10.1.0.5:9400", "10.1.0.9:9400"}) {
      EXPECT_NE(names.find(n), std::string::npos) << names;
    }
    EXPECT_EQ((*restarted)["stale"], false) << restarted->dump();
    EXPECT_FALSE(NodeHasFinding(*restarted, "fleet.node_stale")) << restarted->dump();
    EXPECT_EQ(GpusOf(fleet, "dcgm-exporter-q7x2m"), 5);
    EXPECT_EQ(GpusOf(fleet, "dcgm-exporter-wwwjh"), 3);  // 2026: lowercase hostname, MIG
    EXPECT_EQ(GpusOf(fleet, "yg-data-k8s-gpu-a30-node-test-test0003.mt"), 2);  // MIG instances
    EXPECT_EQ(GpusOf(fleet, "10.1.0.8:9400"), 1);  // 2.0: no Hostname, the instance
    // Capture 09's one GPU under two Hostnames (two threads' excerpts).
    EXPECT_EQ(GpusOf(fleet, "home") + GpusOf(fleet, "workstation"), 1);
    // Only the one that stopped 10 min ago is stale.
    EXPECT_EQ(fleet["summary"]["stale"], 1);
  }
}

// 2.x and 3.x Xids (gpu, UUID and device labels, no pci_bus_id) are their
// GPU's: on its row, in its verdict and in the summary's critical count.
// DCGM_EXP_XID_ERRORS_COUNT counts too.
TEST_F(FleetCapturesE2e, XidWithoutBusIdIsItsGpusAndCounted) {
  for (const auto& [engine, url] : Engines()) {
    SCOPED_TRACE(engine);
    json fleet = Fleet(url, 6);
    const json* gpu = GpuByIndex(fleet, "dcgm-exporter-q7x2m", "1");
    ASSERT_NE(gpu, nullptr) << fleet["gpus"].dump().substr(0, 3000);
    EXPECT_EQ((*gpu)["xid_counts"].value("48", 0.0), 1.0) << gpu->dump();
    EXPECT_EQ((*gpu)["worst"], "critical") << gpu->dump();
    EXPECT_EQ((*gpu)["verdict_now"], "critical") << gpu->dump();
    EXPECT_GE(fleet["summary"]["critical"].get<int>(), 1);
    const json* node = CaptureNode(fleet, "dcgm-exporter-q7x2m");
    ASSERT_NE(node, nullptr);
    for (const auto& f : (*node)["findings"]) {
      EXPECT_FALSE(f["id"].get<std::string>().starts_with("xid.")) << "on the node: " << f.dump();
    }
    const json* exp = nullptr;
    for (const char* host : {"home", "workstation"}) {
      if (!exp) exp = GpuByIndex(fleet, host, "0");
    }
    ASSERT_NE(exp, nullptr);
    EXPECT_EQ((*exp)["xid_counts"].value("43", 0.0), 1.0) << exp->dump();
  }
}

// "id gpu,gpu" of each finding of a report.
std::string ReportFindings(const json& report) {
  std::string out;
  for (const auto& f : report.value("findings", json::array())) {
    out += f["id"].get<std::string>() + " " + f["gpus"].dump() + "; ";
  }
  return out;
}

// report --prometheus gives the same findings by the exporter's old pod
// name, its new one and its addresses; an address that two exporters share
// is an error naming both.
TEST_F(FleetCapturesE2e, ReportIsTheSameByEveryNameOfTheNode) {
  for (const auto& [engine, url] : Engines()) {
    SCOPED_TRACE(engine);
    int code = 0;
    json by_new = Report(url, "dcgm-exporter-q7x2m", &code);
    EXPECT_EQ(code, 2) << by_new.dump().substr(0, 2000);
    const std::string findings = ReportFindings(by_new);
    EXPECT_NE(findings.find("xid."), std::string::npos) << findings;
    EXPECT_EQ(findings.find("[]"), std::string::npos) << "a finding on no GPU: " << findings;
    for (const char* name : {"dcgm-exporter-lcxpl", "10.1.0.5:9400", "10.1.0.9"}) {
      SCOPED_TRACE(name);
      EXPECT_EQ(ReportFindings(Report(url, name)), findings);
    }
    // Two exporters on one address (ports 9400 and 9401): both named, none picked.
    json several = Report(url, "10.1.0.13", &code);
    EXPECT_EQ(code, 3);
    const std::string error = several.value("error", std::string());
    EXPECT_NE(error.find("matches 2 nodes"), std::string::npos) << several.dump();
    EXPECT_NE(error.find("10.1.0.13:9400"), std::string::npos) << error;
    EXPECT_NE(error.find("10.1.0.13:9401"), std::string::npos) << error;
  }
}

// The age of a node's last sample is the sample's, at 6 h (15 min
// stretches) and 24 h (1 h stretches).
TEST_F(FleetCapturesE2e, LastSampleAgeIsTheSamplesAge) {
  for (const auto& [engine, url] : Engines()) {
    for (int hours : {6, 24}) {
      SCOPED_TRACE(engine + " over " + std::to_string(hours) + " h");
      json fleet = Fleet(url, hours);
      const json* silent = CaptureNode(fleet, "r6i3n0");
      ASSERT_NE(silent, nullptr) << fleet.dump().substr(0, 2000);
      EXPECT_EQ((*silent)["stale"], true) << silent->dump();
      EXPECT_NEAR((*silent)["last_sample_age_s"].get<double>(), 600.0, 61.0) << silent->dump();
      for (const auto& n : fleet["nodes"]) {
        if (n["node"] == "r6i3n0") continue;
        EXPECT_LT(n["last_sample_age_s"].get<double>(), 61.0) << n.dump().substr(0, 500);
      }
    }
  }
}

// One story per window: a GPU at 91 °C for the last 2 h of 6 is a warning
// in the report's headline and its GPU's verdict, as the timeline shows it
// still active, not "briefly above" at info; fleet's verdict now agrees.
TEST_F(FleetCapturesE2e, AConditionStillActiveIsInTheHeadlineAtItsSeverity) {
  for (const auto& [engine, url] : Engines()) {
    SCOPED_TRACE(engine);
    int code = 0;
    json rep = Report(url, "l40s.example.com", &code);
    EXPECT_EQ(code, 1) << rep.dump().substr(0, 2000);
    EXPECT_EQ(rep["verdict"], "warning");
    bool found = false;
    for (const auto& f : rep["findings"]) {
      if (f["id"] != "thermal.high_temperature") continue;
      found = true;
      EXPECT_EQ(f["severity"], "warning") << f.dump().substr(0, 1000);
      EXPECT_EQ(f["gpus"], json::array({"0000:4e:00.0"}));
    }
    EXPECT_TRUE(found) << ReportFindings(rep);
    bool active = false;
    for (const auto& t : rep["timeline"]) {
      active = active || (t["id"] == "thermal.high_temperature" && t["end"].is_null());
    }
    EXPECT_TRUE(active) << rep["timeline"].dump().substr(0, 2000);
    const json fleet = Fleet(url, 6);
    const json* gpu = GpuByIndex(fleet, "l40s.example.com", "0");
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ((*gpu)["verdict_now"], "warning") << gpu->dump();
  }
}

}  // namespace
}  // namespace gpudoctor::test
