// `gpudoctor fleet` over a history written by bench/fleet_history.py: 8
// nodes x 8 GPUs x 8 h at 60 s, loaded into a real Prometheus (promtool
// blocks) and a real VictoriaMetrics (its import API).
// - In dcgm-exporter's names only (no gpudoctor agent anywhere): the rules
//   run over the series and must find the hot, throttled, Xid-reporting,
//   lost and ECC-failing GPUs and the node that stopped reporting; the
//   healthy nodes stay ok.
// - The same faults in the series of gpudoctor's agents (the benchmark's
//   other history): fleet reads the agents' verdicts, findings, counters and
//   states.
#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/httplib_config.h"
#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/tsdb_servers.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

const std::string kHistoryScript = std::string(TEST_DATA_DIR) + "/../../bench/fleet_history.py";

std::string WriteHistory(const TempDir& dir, const std::string& names, const std::string& format,
                         long end_s) {
  ProcessOptions o;
  o.timeout = std::chrono::minutes(2);
  auto r = RunProcess({"/usr/bin/python3", kHistoryScript, "--nodes", "8", "--gpus", "8", "--hours", "8",
                       "--end", std::to_string(end_s), "--names", names, "--format", format},
                      o);
  if (r.exit_code != 0) return "";
  return dir.Write(format == "vm" ? "history.jsonl" : "history.om", r.out);
}

std::string Rfc3339OfUnix(long s) {
  const std::time_t t = s;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

const json* DcgmGpu(const json& fleet, const std::string& node, const std::string& bus) {
  for (const auto& g : fleet["gpus"]) {
    if (g["node"] == node && g["pci_bus_id"] == bus) return &g;
  }
  return nullptr;
}

bool DcgmHasFinding(const json& gpu, const std::string& prefix) {
  for (const auto& f : gpu["findings"]) {
    if (f["id"].get<std::string>().starts_with(prefix)) return true;
  }
  return false;
}

// `fleet --format json` over the 8 h history of one job: 8 nodes, 64 GPUs.
void RunFleetOver8Hours(const std::string& url, long end_s, const std::string& job, json& fleet) {
  auto r = RunGpudoctor({"fleet", "--prometheus", url, "--from", Rfc3339OfUnix(end_s - 8 * 3600),
                         "--to", Rfc3339OfUnix(end_s), "--match", "{job=\"" + job + "\"}",
                         "--format", "json"},
                        "");
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out.substr(0, 2000);
  fleet = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(fleet.is_object()) << r.out.substr(0, 2000);
  // 20 for any fleet, and at most 4 reads of the GPUs silent at the end.
  EXPECT_LE(fleet["queries"].get<int>(), 24);
  EXPECT_EQ(fleet["summary"]["nodes"], 8) << fleet["nodes"].dump().substr(0, 2000);
  EXPECT_EQ(fleet["gpus"].size(), 64u);
}

void CheckDcgmFleet(const std::string& engine, const std::string& url, long end_s) {
  SCOPED_TRACE(engine);
  json fleet;
  ASSERT_NO_FATAL_FAILURE(RunFleetOver8Hours(url, end_s, "dcgm-exporter", fleet));
  bool noted = false;
  for (const auto& n : fleet["notes"]) noted = noted || n.get<std::string>().find("last Xid code") != std::string::npos;
  EXPECT_TRUE(noted) << fleet["notes"].dump();

  const json* hot = DcgmGpu(fleet, "node-0001", "0000:1a:00.0");
  ASSERT_NE(hot, nullptr);
  EXPECT_TRUE(DcgmHasFinding(*hot, "thermal.high_temperature")) << hot->dump();
  EXPECT_EQ((*hot)["source"], "dcgm-exporter");
  const json* slow = DcgmGpu(fleet, "node-0002", "0000:1d:00.0");
  ASSERT_NE(slow, nullptr);
  EXPECT_TRUE(DcgmHasFinding(*slow, "thermal.slowdown")) << slow->dump();
  EXPECT_GT((*slow)["throttled_seconds"].value("thermal (violation counter)", 0.0), 3000.0)
      << slow->dump();
  const json* lost = DcgmGpu(fleet, "node-0003", "0000:19:00.0");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ((*lost)["xid_counts"].value("79", 0.0), 1.0) << lost->dump();
  EXPECT_EQ((*lost)["lost_now"], true) << lost->dump();
  EXPECT_EQ((*lost)["verdict_now"], "critical");
  EXPECT_TRUE(DcgmHasFinding(*lost, "xid.")) << lost->dump();
  const json* xid13 = DcgmGpu(fleet, "node-0004", "0000:1b:00.0");
  ASSERT_NE(xid13, nullptr);
  EXPECT_EQ((*xid13)["xid_counts"].value("13", 0.0), 1.0) << xid13->dump();
  const json* ecc = DcgmGpu(fleet, "node-0005", "0000:18:00.0");
  ASSERT_NE(ecc, nullptr);
  EXPECT_TRUE(DcgmHasFinding(*ecc, "ecc.")) << ecc->dump();
  for (const auto& n : fleet["nodes"]) {
    EXPECT_EQ(n["stale"], n["node"] == "node-0006") << n.dump().substr(0, 500);
    if (n["node"] == "node-0000" || n["node"] == "node-0007") {
      EXPECT_EQ(n["worst"], "ok") << n.dump().substr(0, 500);
    }
  }
  for (const auto& g : fleet["gpus"]) {
    if (g["node"] == "node-0000" || g["node"] == "node-0007") {
      EXPECT_EQ(g["worst"], "ok") << g.dump();
    }
  }
}

using FleetCheck = void (*)(const std::string& engine, const std::string& url, long end_s);

// Writes the history in `names`, loads it into Prometheus and
// VictoriaMetrics, and runs `check` against each.
void CheckBothEngines(const std::string& names, FleetCheck check) {
  if (!std::filesystem::exists(kPrometheusBinary) || !std::filesystem::exists(kPromtoolBinary)) {
    GTEST_SKIP() << "prometheus / promtool not installed (Debian package prometheus)";
  }
  TempDir dir;
  const long end_s =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count() -
      120;
  const std::string om = WriteHistory(dir, names, "openmetrics", end_s);
  ASSERT_FALSE(om.empty()) << "bench/fleet_history.py failed";
  const std::string tsdb = (dir.path() / "tsdb").string();
  const std::string err = CreateBlocksFromOpenMetrics(om, tsdb);
  ASSERT_EQ(err, "");
  auto prometheus = TsdbServer::Prometheus({}, "60s", tsdb);
  ASSERT_TRUE(prometheus->ready()) << prometheus->Log();
  check("prometheus", prometheus->url(), end_s);

  if (!std::filesystem::exists(kVictoriaMetricsBinary)) {
    ADD_FAILURE() << "victoria-metrics not installed (scripts/bootstrap.sh installs it)";
    return;
  }
  auto vm = TsdbServer::VictoriaMetrics({}, "60s");
  ASSERT_TRUE(vm->ready()) << vm->Log();
  const std::string jsonl = WriteHistory(dir, names, "vm", end_s);
  ASSERT_FALSE(jsonl.empty());
  std::string body;
  {
    std::ifstream in(jsonl);
    std::stringstream s;
    s << in.rdbuf();
    body = s.str();
  }
  httplib::Client c(vm->url());
  c.set_read_timeout(60);
  auto imported = c.Post("/api/v1/import", body, "application/json");
  ASSERT_TRUE(imported && imported->status == 204) << (imported ? imported->body : "no answer");
  // Imported rows become searchable after VictoriaMetrics' next flush.
  auto flushed = c.Get("/internal/force_flush");
  ASSERT_TRUE(flushed && flushed->status == 200);
  check("victoria-metrics", vm->url(), end_s);
}

TEST(FleetDcgmE2e, FindsTheSickGpusInADcgmExporterHistory) {
  CheckBothEngines("dcgm", CheckDcgmFleet);
}

// Node n of the gpudoctor-named history is the agent at 10.0.0.(n+1):9402.
std::string AgentNode(int n) { return "10.0.0." + std::to_string(n + 1) + ":9402"; }

void CheckAgentFleet(const std::string& engine, const std::string& url, long end_s) {
  SCOPED_TRACE(engine);
  json fleet;
  ASSERT_NO_FATAL_FAILURE(RunFleetOver8Hours(url, end_s, "gpudoctor", fleet));

  const json* hot = DcgmGpu(fleet, AgentNode(1), "0000:1a:00.0");
  ASSERT_NE(hot, nullptr);
  EXPECT_TRUE(DcgmHasFinding(*hot, "thermal.high_temperature")) << hot->dump();
  EXPECT_EQ((*hot)["verdict_now"], "warning") << hot->dump();
  EXPECT_EQ((*hot)["source"], "gpudoctor") << hot->dump();
  const json* slow = DcgmGpu(fleet, AgentNode(2), "0000:1d:00.0");
  ASSERT_NE(slow, nullptr);
  EXPECT_TRUE(DcgmHasFinding(*slow, "thermal.slowdown")) << slow->dump();
  // 2 h of hw_thermal_slowdown counted by the agent, all inside the window.
  double throttled = 0;
  for (const auto& [reason, s] : (*slow)["throttled_seconds"].items()) throttled += s.get<double>();
  EXPECT_NEAR(throttled, 7200.0, 120.0) << slow->dump();
  const json* lost = DcgmGpu(fleet, AgentNode(3), "0000:19:00.0");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ((*lost)["xid_counts"].value("79", 0.0), 1.0) << lost->dump();
  EXPECT_EQ((*lost)["lost_now"], true) << lost->dump();
  EXPECT_EQ((*lost)["verdict_now"], "critical");
  EXPECT_TRUE(DcgmHasFinding(*lost, "xid.fallen_off_bus")) << lost->dump();
  EXPECT_TRUE(DcgmHasFinding(*lost, "gpu.lost")) << lost->dump();
  // Xid 13 5 h before the end, its finding over 10 min later: in the window,
  // not now.
  const json* xid13 = DcgmGpu(fleet, AgentNode(4), "0000:1b:00.0");
  ASSERT_NE(xid13, nullptr);
  EXPECT_EQ((*xid13)["xid_counts"].value("13", 0.0), 1.0) << xid13->dump();
  EXPECT_EQ((*xid13)["verdict_now"], "ok") << xid13->dump();
  EXPECT_EQ((*xid13)["worst"], "warning") << xid13->dump();
  const json* ecc = DcgmGpu(fleet, AgentNode(5), "0000:18:00.0");
  ASSERT_NE(ecc, nullptr);
  EXPECT_TRUE(DcgmHasFinding(*ecc, "ecc.uncorrectable")) << ecc->dump();
  for (const auto& n : fleet["nodes"]) {
    EXPECT_EQ(n["stale"], n["node"] == AgentNode(6)) << n.dump().substr(0, 500);
    if (n["node"] == AgentNode(0) || n["node"] == AgentNode(7)) {
      EXPECT_EQ(n["worst"], "ok") << n.dump().substr(0, 500);
    }
  }
}

TEST(FleetDcgmE2e, ReadsTheAgentsSeriesInAGpudoctorHistory) {
  CheckBothEngines("gpudoctor", CheckAgentFleet);
}

}  // namespace
}  // namespace gpudoctor::test
