// `gpudoctor fleet` against real engines on loopback: five agents on the
// fake NVML, one per scenario (a healthy node; a node whose GPU overheats
// into thermal slowdown; one whose GPU is held by the power brake; one whose
// GPU reports Xid 79 and is lost; a node that stops reporting after 6 s),
// scraped every second by a real Prometheus and by a real VictoriaMetrics.
// `fleet` must name each node's problem from either, and `report
// --prometheus` of each troubled node must agree with its agent's own.
// Every agent serves both namings (`--metrics-names both`, its host name
// from NODE_NAME as `Hostname`): each machine is still one node, and its
// report is the same whether --node names its instance or its host name.
#include <gtest/gtest.h>

#include <functional>
#include <signal.h>

#include <atomic>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/httplib_config.h"
#include "support/analyze_json.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/tsdb_servers.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

struct FleetAgent {
  int port = 0;
  std::unique_ptr<TempDir> root, data;
  std::unique_ptr<BackgroundProcess> process;
  std::string target() const { return "127.0.0.1:" + std::to_string(port); }
  // The host name its dcgm series carry (NODE_NAME).
  std::string hostname() const { return "gpu-node-" + std::to_string(port); }
};

// A one-GPU scenario: GPU `gpu` of agent_trouble.json (0 overheats, 1 is
// braked, 2 is lost), written into the agent's data directory.
std::string OneGpuOfTrouble(const FleetAgent& a, int gpu) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/scenarios/agent_trouble.json");
  json scenario = json::parse(in, nullptr, false);
  if (!scenario.is_object() || scenario["gpus"].size() <= static_cast<std::size_t>(gpu)) return "";
  scenario["gpus"] = json::array({scenario["gpus"][gpu]});
  return a.data->Write("scenario.json", scenario.dump());
}

std::map<std::string, std::string> AgentEnv(const FleetAgent& a, const std::string& scenario) {
  auto env = FakeNvmlEnv(scenario.starts_with("/") ? scenario
                                                   : std::string(TEST_DATA_DIR) + "/scenarios/" + scenario);
  env["NODE_NAME"] = a.hostname();
  return env;
}

void StartFleetAgent(FleetAgent& a, const std::string& scenario, const std::string& run_for) {
  if (!a.root) a.root = std::make_unique<TempDir>();
  if (!a.data) a.data = std::make_unique<TempDir>();
  a.root->Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
  a.root->Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  a.process = std::make_unique<BackgroundProcess>(
      GpudoctorArgv({"agent", "--data-dir", a.data->path().string(), "--root",
                     a.root->path().string(), "--interval", "200ms", "--window", "2s",
                     "--evaluate-every", "400ms", "--facts-every", "1h", "--no-kernel-log",
                     "--run-for", run_for, "--listen", a.target(), "--metrics-names", "both"}),
      AgentEnv(a, scenario), (a.data->path() / "agent.log").string());
}

// The troubled nodes: one GPU each.
struct TroubledAgents {
  FleetAgent hot, braked, lost;
};

// Polls the engine until the lost node's Xid 79 is in it (bounded).
bool WaitForHistory(const std::string& url, std::chrono::seconds limit) {
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(5);
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    auto r = c.Get("/api/v1/query?query=gpudoctor_xid_events_total%7Bxid%3D%2279%22%7D");
    if (r && r->status == 200) {
      json j = json::parse(r->body, nullptr, false);
      if (j.is_object() && !j["data"]["result"].empty()) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

bool WaitForTargets(const std::string& url, std::size_t targets, std::chrono::seconds limit) {
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(5);
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    auto r = c.Get("/api/v1/query?query=up");
    if (r && r->status == 200) {
      json j = json::parse(r->body, nullptr, false);
      if (j.is_object() && j["data"]["result"].size() >= targets) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return false;
}

const json* FleetGpu(const json& fleet, const std::string& node, const std::string& bus) {
  for (const auto& g : fleet["gpus"]) {
    if (g["node"] == node && g["pci_bus_id"] == bus) return &g;
  }
  return nullptr;
}

const json* FleetNode(const json& fleet, const std::string& node) {
  for (const auto& n : fleet["nodes"]) {
    if (n["node"] == node) return &n;
  }
  return nullptr;
}

bool HasFinding(const json& gpu, const std::string& id) {
  for (const auto& f : gpu["findings"]) {
    if (f["id"] == id) return true;
  }
  return false;
}

void CheckFleet(const std::string& engine, const std::string& url, const FleetAgent& healthy,
                const TroubledAgents& trouble, const FleetAgent& stale) {
  SCOPED_TRACE(engine);
  auto r = RunGpudoctor({"fleet", "--prometheus", url, "--since", "3m", "--stale-after", "5s",
                         "--resolution", "1s", "--format", "json"},
                        "");
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out.substr(0, 3000);  // a GPU critical now
  json fleet = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(fleet.is_object()) << r.out.substr(0, 2000);
  EXPECT_EQ(fleet["schema"], "gpudoctor.fleet/v1");
  // 20 for any fleet, and at most 4 reads of the GPUs silent at the end.
  EXPECT_LE(fleet["queries"].get<int>(), 24);
  // One node per agent although each serves gpudoctor's and dcgm's names.
  EXPECT_EQ(fleet["summary"]["nodes"], 5) << fleet["nodes"].dump();
  EXPECT_EQ(fleet["summary"]["gpus"], 7) << fleet["gpus"].dump().substr(0, 3000);
  for (const auto& g : fleet["gpus"]) EXPECT_EQ(g["source"], "gpudoctor") << g.dump();
  const json* named = FleetNode(fleet, trouble.hot.target());
  ASSERT_NE(named, nullptr);
  EXPECT_NE(named->value("names", json::array()).dump().find(trouble.hot.hostname()),
            std::string::npos)
      << named->dump();
  EXPECT_EQ(fleet["summary"]["stale"], 1);

  const json* lost = FleetGpu(fleet, trouble.lost.target(), "0000:1a:00.0");
  ASSERT_NE(lost, nullptr) << fleet["gpus"].dump();
  EXPECT_EQ((*lost)["lost_now"], true) << lost->dump();
  EXPECT_EQ((*lost)["verdict_now"], "critical") << lost->dump();
  EXPECT_GE((*lost)["xid_counts"].value("79", 0.0), 1.0) << lost->dump();
  const json* hot = FleetGpu(fleet, trouble.hot.target(), "0000:18:00.0");
  ASSERT_NE(hot, nullptr);
  EXPECT_TRUE(HasFinding(*hot, "thermal.slowdown")) << hot->dump();
  EXPECT_EQ((*hot)["lost_now"], false) << hot->dump();
  EXPECT_TRUE((*hot)["xid_counts"].empty()) << hot->dump();
  const json* braked = FleetGpu(fleet, trouble.braked.target(), "0000:19:00.0");
  ASSERT_NE(braked, nullptr);
  // The brake held for 2 s: its counter shows it whether or not a scrape
  // caught the agent's finding while it was active.
  EXPECT_GT((*braked)["throttled_seconds"].value("hw_power_brake_slowdown", 0.0), 0.0)
      << braked->dump();
  EXPECT_EQ((*braked)["lost_now"], false) << braked->dump();
  // The worst GPU comes first.
  EXPECT_EQ(fleet["gpus"][0]["verdict_now"], "critical");

  int healthy_gpus = 0;
  for (const auto& g : fleet["gpus"]) {
    if (g["node"] != healthy.target()) continue;
    ++healthy_gpus;
    EXPECT_TRUE(g["worst"] == "ok" || g["worst"] == "info") << g.dump();
  }
  EXPECT_EQ(healthy_gpus, 2);
  const json* quiet = FleetNode(fleet, stale.target());
  ASSERT_NE(quiet, nullptr);
  EXPECT_EQ((*quiet)["stale"], true) << quiet->dump();
  for (const FleetAgent* a : {&trouble.hot, &trouble.braked, &trouble.lost}) {
    const json* node = FleetNode(fleet, a->target());
    ASSERT_NE(node, nullptr) << a->target();
    EXPECT_EQ((*node)["stale"], false) << node->dump();
  }
  EXPECT_EQ((*FleetNode(fleet, trouble.lost.target()))["worst"], "critical");
  const std::string hot_worst = (*FleetNode(fleet, trouble.hot.target()))["worst"];
  EXPECT_TRUE(hot_worst == "warning" || hot_worst == "critical") << hot_worst;
}

std::string Rfc3339Now(std::chrono::seconds ago) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() - ago);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// "id gpu,gpu" per finding of the report's diagnosis or timeline.
std::set<std::string> FindingKeys(const json& report, bool timeline) {
  std::set<std::string> keys;
  const json& list = timeline ? report["timeline"] : report["findings"];
  for (const auto& f : list) {
    if (timeline && f["type"] != "finding") continue;
    std::string gpus;
    for (const auto& g : f["gpus"]) gpus += g.get<std::string>() + ",";
    // In the timeline, also whether it was still active at the window's end.
    std::string state = timeline ? (f["end"].is_null() ? " active" : " ended") : "";
    keys.insert(f["id"].get<std::string>() + " " + gpus + state);
  }
  return keys;
}

std::string KeysText(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += "[" + k + "] ";
  return out;
}

// `report --prometheus --node` of a troubled node against the agent's
// own `report` of the same window from its store.
void CheckReportsAgree(const std::string& url, const FleetAgent& trouble, const std::string& from,
                       const std::string& to) {
  auto local = RunGpudoctor({"report", "--data-dir", trouble.data->path().string(), "--from", from,
                             "--to", to, "--format", "json"},
                            "");
  auto remote = RunGpudoctor({"report", "--prometheus", url, "--node", trouble.target(), "--from",
                              from, "--to", to, "--format", "json"},
                             "");

  // The same verdict: 2 critical, 1 warning at worst.
  ASSERT_TRUE(local.exit_code == 1 || local.exit_code == 2) << local.exit_code << local.err;
  ASSERT_EQ(remote.exit_code, local.exit_code) << remote.err;
  json l = json::parse(local.out, nullptr, false), r = json::parse(remote.out, nullptr, false);
  ASSERT_TRUE(l.is_object() && r.is_object()) << remote.out.substr(0, 1000);
  EXPECT_EQ(KeysText(FindingKeys(r, true)), KeysText(FindingKeys(l, true)));
  EXPECT_EQ(KeysText(FindingKeys(r, false)), KeysText(FindingKeys(l, false)));
  EXPECT_EQ(r["gpus"].size(), l["gpus"].size());
  // By the host name its dcgm series carry: the same node, the same report.
  auto by_host = RunGpudoctor({"report", "--prometheus", url, "--node", trouble.hostname(),
                               "--from", from, "--to", to, "--format", "json"},
                              "");
  ASSERT_EQ(by_host.exit_code, local.exit_code) << by_host.err;
  json h = json::parse(by_host.out, nullptr, false);
  ASSERT_TRUE(h.is_object()) << by_host.out.substr(0, 1000);
  EXPECT_EQ(KeysText(FindingKeys(h, false)), KeysText(FindingKeys(l, false)));
  EXPECT_EQ(KeysText(FindingKeys(h, true)), KeysText(FindingKeys(l, true)));
}

TEST(FleetE2e, NamesEachNodesProblemFromPrometheusAndVictoriaMetrics) {
  if (!std::filesystem::exists(kPrometheusBinary)) {
    GTEST_SKIP() << "prometheus not installed (Debian package prometheus)";
  }
  // The engines first (they take a few seconds to start), then the agents
  // on ports chosen now.
  FleetAgent healthy, stale;
  TroubledAgents trouble;
  const std::vector<FleetAgent*> agents = {&healthy, &trouble.hot, &trouble.braked, &trouble.lost,
                                           &stale};
  std::vector<std::string> targets;
  for (FleetAgent* a : agents) {
    a->port = FreeLoopbackPort();
    targets.push_back(a->target());
  }
  auto prometheus = TsdbServer::Prometheus(targets, "1s");
  ASSERT_TRUE(prometheus->ready()) << prometheus->Log();
  std::unique_ptr<TsdbServer> vm;
  if (std::filesystem::exists(kVictoriaMetricsBinary)) {
    vm = TsdbServer::VictoriaMetrics(targets, "1s");
    ASSERT_TRUE(vm->ready()) << vm->Log();
  }
  // Prometheus syncs its targets a few seconds after it starts: the agents
  // start once both engines have tried every target, so that their history
  // is complete from the first second.
  ASSERT_TRUE(WaitForTargets(prometheus->url(), targets.size(), std::chrono::seconds(60)))
      << prometheus->Log();
  if (vm) {
    ASSERT_TRUE(WaitForTargets(vm->url(), targets.size(), std::chrono::seconds(60))) << vm->Log();
  }
  StartFleetAgent(healthy, "healthy_busy.json", "150s");
  int gpu = 0;
  for (FleetAgent* a : {&trouble.hot, &trouble.braked, &trouble.lost}) {
    a->data = std::make_unique<TempDir>();
    const std::string scenario = OneGpuOfTrouble(*a, gpu++);
    ASSERT_FALSE(scenario.empty());
    StartFleetAgent(*a, scenario, "150s");
  }
  StartFleetAgent(stale, "healthy_idle.json", "6s");
  ASSERT_TRUE(WaitForHistory(prometheus->url(), std::chrono::seconds(60))) << prometheus->Log();
  // Past the stale node's end (6 s) by more than --stale-after.
  EXPECT_NE(stale.process->Wait(std::chrono::seconds(30)), -1);
  std::this_thread::sleep_for(std::chrono::seconds(7));
  CheckFleet("prometheus", prometheus->url(), healthy, trouble, stale);

  // From before the agents started (the engines started first) to just
  // before the last scrape.
  const std::string report_from = Rfc3339Now(std::chrono::seconds(150));
  const std::string report_to = Rfc3339Now(std::chrono::seconds(2));
  for (const FleetAgent* a : {&trouble.hot, &trouble.braked, &trouble.lost}) {
    SCOPED_TRACE("report --prometheus of " + a->target());
    CheckReportsAgree(prometheus->url(), *a, report_from, report_to);
  }

  // 127.0.0.1 is every agent's address: an error naming them, not one picked.
  auto several = RunGpudoctor({"report", "--prometheus", prometheus->url(), "--node", "127.0.0.1",
                               "--since", "3m"},
                              "");
  EXPECT_NE(several.exit_code, 0);
  EXPECT_EQ(several.out, "");
  EXPECT_NE(several.err.find("matches 5 nodes"), std::string::npos) << several.err;
  EXPECT_NE(several.err.find(trouble.lost.target()), std::string::npos) << several.err;

  auto text = RunGpudoctor({"fleet", "--prometheus", prometheus->url(), "--since", "3m",
                            "--stale-after", "5s", "--resolution", "1s"},
                           "");
  EXPECT_NE(text.out.find("5 nodes, 7 GPUs"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("fleet.node_stale"), std::string::npos) << text.out;
  auto html = RunGpudoctor({"fleet", "--prometheus", prometheus->url(), "--since", "3m",
                            "--stale-after", "5s", "--resolution", "1s", "--format", "html"},
                           "");
  EXPECT_NE(html.out.find("class=\"cell critical\" href=\"#g0\""), std::string::npos)
      << html.out.substr(0, 3000);
  EXPECT_NE(html.out.find("id=\"g0\""), std::string::npos);
  EXPECT_NE(html.out.find("class=\"strip\""), std::string::npos);

  if (vm) {
    ASSERT_TRUE(WaitForHistory(vm->url(), std::chrono::seconds(60))) << vm->Log();
    CheckFleet("victoria-metrics", vm->url(), healthy, trouble, stale);
    SCOPED_TRACE("report --prometheus against victoria-metrics");
    for (const FleetAgent* a : {&trouble.hot, &trouble.braked, &trouble.lost}) {
      SCOPED_TRACE("report --prometheus of " + a->target());
      CheckReportsAgree(vm->url(), *a, report_from, report_to);
    }
  } else {
    ADD_FAILURE() << "victoria-metrics not installed (Debian package victoria-metrics; "
                     "scripts/bootstrap.sh installs it)";
  }
}

// GPU 1 of a 2-GPU node is lost before the agent first sees it: NVML lists
// it without a bus id. Every front-end tells the same story: two GPUs, GPU 1
// critical with gpu.lost, the node critical -- the agent's report from its
// store, report --prometheus, fleet and check. (Before: fleet showed GPU 1
// as "no data" with verdict ok, no finding on its row, 0 critical GPUs; the
// agent served no verdict series for it and a gpu.lost naming no GPU.)
TEST(FleetE2e, AGpuLostBeforeFirstSightIsOneCriticalGpuInEveryFrontEnd) {
  if (!std::filesystem::exists(kPrometheusBinary)) {
    GTEST_SKIP() << "prometheus not installed (Debian package prometheus)";
  }
  FleetAgent agent;
  agent.port = FreeLoopbackPort();
  auto prometheus = TsdbServer::Prometheus({agent.target()}, "1s");
  ASSERT_TRUE(prometheus->ready()) << prometheus->Log();
  ASSERT_TRUE(WaitForTargets(prometheus->url(), 1, std::chrono::seconds(60))) << prometheus->Log();
  agent.data = std::make_unique<TempDir>();
  const std::string scenario =
      agent.data->Write("scenario.json", R"({"gpus": [{}, {"faults": [{"kind": "lost"}]}]})");
  StartFleetAgent(agent, scenario, "150s");
  ASSERT_TRUE(WaitForQuery(prometheus->url(), R"(gpudoctor_gpu_verdict{gpu="1"} == 3)",
                           std::chrono::seconds(90)))
      << prometheus->Log();
  // A few more scrapes, so that the window's last stretch holds samples.
  std::this_thread::sleep_for(std::chrono::seconds(3));

  auto fleet = RunGpudoctor({"fleet", "--prometheus", prometheus->url(), "--since", "2m",
                             "--resolution", "1s", "--format", "json"},
                            "");
  ASSERT_EQ(fleet.exit_code, 2) << fleet.err << fleet.out.substr(0, 2000);
  json f = json::parse(fleet.out, nullptr, false);
  ASSERT_TRUE(f.is_object()) << fleet.out.substr(0, 2000);
  EXPECT_EQ(f["summary"]["gpus"], 2) << f.dump(1);
  EXPECT_EQ(f["summary"]["critical"], 1) << f.dump(1);
  const json* node = FleetNode(f, agent.target());
  ASSERT_NE(node, nullptr) << f.dump(1);
  EXPECT_EQ((*node)["worst"], "critical");
  const json* lost = nullptr;
  for (const auto& g : f["gpus"]) {
    if (g["gpu"] == "1") lost = &g;
  }
  ASSERT_NE(lost, nullptr) << f["gpus"].dump(1);
  EXPECT_EQ((*lost)["verdict_now"], "critical") << lost->dump(1);
  EXPECT_EQ((*lost)["worst"], "critical") << lost->dump(1);
  EXPECT_TRUE(HasFinding(*lost, "gpu.lost")) << lost->dump(1);
  EXPECT_TRUE((*lost)["lost_now"].get<bool>());

  // The agent's store and Prometheus, read by `report`: the same GPUs and
  // the same verdicts, GPU 1 named by gpu.lost.
  for (const bool remote : {false, true}) {
    SCOPED_TRACE(remote ? "report --prometheus" : "report --data-dir");
    std::vector<std::string> args = {"report", "--since", "2m", "--format", "json"};
    if (remote) {
      args.insert(args.end(), {"--prometheus", prometheus->url(), "--node", agent.target()});
    } else {
      args.insert(args.end(), {"--data-dir", agent.data->path().string()});
    }
    auto report = RunGpudoctor(args, "");
    ASSERT_EQ(report.exit_code, 2) << report.err;
    json r = json::parse(report.out, nullptr, false);
    ASSERT_TRUE(r.is_object()) << report.out.substr(0, 2000);
    ASSERT_EQ(r["gpus"].size(), 2u) << r["gpus"].dump(1);
    EXPECT_EQ(r["gpus"][0]["verdict"], "ok") << r["gpus"].dump(1);
    EXPECT_EQ(r["gpus"][1]["index"], 1);
    EXPECT_EQ(r["gpus"][1]["verdict"], "critical") << r["gpus"].dump(1);
    const json* finding = FindingOf(r, "gpu.lost");
    ASSERT_NE(finding, nullptr) << r["findings"].dump(1);
    EXPECT_EQ((*finding)["gpus"], json::array({"index:1"})) << finding->dump(1);
    EXPECT_EQ(FindingOf(r, "power.supply_suspected"), nullptr) << r["findings"].dump(1);
  }

  // `check` from the running agent's state: GPU 1 lost, once.
  ProcessOptions o;
  o.env["GPUDOCTOR_NVML_LIBRARY"] = (agent.data->path() / "no-such-libnvidia-ml.so.1").string();
  o.unset_env = {"FAKE_NVML_SCENARIO"};
  auto check = RunProcess({GPUDOCTOR_BINARY, "check", "--data-dir", agent.data->path().string(),
                           "--root", agent.root->path().string(), "--slurm"},
                          o);
  EXPECT_EQ(check.exit_code, 1) << check.err << check.out;
  EXPECT_EQ(check.out.rfind("GPU 1 lost", 0), 0u) << check.out;
  EXPECT_EQ(check.out.find("more"), std::string::npos) << check.out;
}

TEST(FleetE2e, PrometheusDownOrAnsweringErrorsIsOneLineAndExit3) {
  const int port = FreeLoopbackPort();
  auto down = RunGpudoctor({"fleet", "--prometheus", "http://127.0.0.1:" + std::to_string(port)}, "");
  EXPECT_EQ(down.exit_code, 3);
  EXPECT_NE(down.err.find("cannot connect"), std::string::npos) << down.err;
  EXPECT_EQ(std::count(down.err.begin(), down.err.end(), '\n'), 1) << down.err;

  // A server answering 503 to everything, and one answering garbage, and one
  // too slow for --prometheus-timeout.
  for (const std::string mode : {"503", "garbage", "slow"}) {
    SCOPED_TRACE(mode);
    httplib::Server server;
    server.Post(".*", [&](const httplib::Request&, httplib::Response& res) {
      if (mode == "503") {
        res.status = 503;
        res.set_content("service unavailable\nmore", "text/plain");
      } else if (mode == "garbage") {
        res.set_content("<html>not prometheus</html>", "text/html");
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        res.set_content("{}", "application/json");
      }
    });
    const int p = server.bind_to_any_port("127.0.0.1");
    std::thread t([&] { server.listen_after_bind(); });
    // Only the slow server is held to a short timeout: on a loaded machine
    // the others' queries (up to 4 in flight) may wait longer than that to be
    // accepted, which is not what they test.
    auto r = RunGpudoctor({"fleet", "--prometheus", "http://127.0.0.1:" + std::to_string(p),
                           "--prometheus-timeout", mode == "slow" ? "500ms" : "20s"},
                          "");
    server.stop();
    t.join();
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    const char* expected = mode == "503" ? "HTTP 503: service unavailable"
                           : mode == "garbage" ? "not the query API's JSON"
                                               : "within 500 ms";
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace gpudoctor::test

namespace gpudoctor::test {
namespace {

// Answers every query with an empty result when the Authorization header
// is `expected`, 401 otherwise.
void ServeEmptyAnswers(httplib::Server& server, const std::string& expected) {
  server.Post(".*", [expected](const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Authorization") != expected) {
      res.status = 401;
      res.set_content("unauthorized", "text/plain");
      return;
    }
    const bool range = req.path.ends_with("query_range");
    res.set_content(std::string(R"({"status":"success","data":{"resultType":")") +
                        (range ? "matrix" : "vector") + R"(","result":[]}})",
                    "application/json");
  });
}

ProcessResult FleetAgainst(const std::string& url, std::vector<std::string> extra) {
  std::vector<std::string> args = {"fleet", "--prometheus", url, "--prometheus-timeout", "5s"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunGpudoctor(args, "");
}

// `fleet --format json` with `extra` against `server` (its handlers set),
// started on a free loopback port for this run.
ProcessResult FleetJsonAgainst(httplib::Server& server, std::vector<std::string> extra) {
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  extra.insert(extra.end(), {"--format", "json"});
  auto r = FleetAgainst("http://127.0.0.1:" + std::to_string(port), extra);
  server.stop();
  t.join();
  return r;
}

TEST(FleetE2e, SendsTheBearerTokenOrBasicAuthFromAFile) {
  TempDir dir;
  const std::string token = dir.Write("token", "s3cret\n");
  const std::string basic = dir.Write("basic", "fleet:pa:ss\n");
  for (const bool bearer : {true, false}) {
    SCOPED_TRACE(bearer ? "bearer" : "basic");
    httplib::Server server;
    // base64("fleet:pa:ss") = ZmxlZXQ6cGE6c3M=
    ServeEmptyAnswers(server, bearer ? "Bearer s3cret" : "Basic ZmxlZXQ6cGE6c3M=");
    const int port = server.bind_to_any_port("127.0.0.1");
    std::thread t([&] { server.listen_after_bind(); });
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    auto ok = FleetAgainst(url, {bearer ? "--prometheus-token-file" : "--prometheus-basic-auth-file",
                                 bearer ? token : basic});
    auto refused = FleetAgainst(url, {});
    server.stop();
    t.join();
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_NE(ok.out.find("0 nodes, 0 GPUs"), std::string::npos) << ok.out;
    EXPECT_EQ(refused.exit_code, 3);
    EXPECT_NE(refused.err.find("HTTP 401 (check the token or basic auth)"), std::string::npos)
        << refused.err;
  }
  auto missing = FleetAgainst("http://127.0.0.1:1", {"--prometheus-token-file", "/nonexistent/t"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("--prometheus-token-file /nonexistent/t: cannot be read"),
            std::string::npos)
      << missing.err;
}

TEST(FleetE2e, KeepsWithinVictoriaMetricsConcurrentRequestLimit) {
  // VictoriaMetrics answers 503 to a request beyond
  // -search.maxConcurrentRequests (twice its cores: 4 on a 2-core server)
  // once it has waited -search.maxQueueDuration. This server refuses at
  // once, and holds each answer a while so that the queries overlap: fleet
  // must get every answer.
  std::atomic<int> in_flight{0}, most{0}, refused{0}, answered{0};
  httplib::Server server;
  server.Post(".*", [&](const httplib::Request& req, httplib::Response& res) {
    const int now = ++in_flight;
    most = std::max(most.load(), now);
    if (now > 4) {
      --in_flight;
      ++refused;
      res.status = 503;
      res.set_content("cannot handle more than 4 concurrent search requests", "text/plain");
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const bool range = req.path.ends_with("query_range");
    res.set_content(std::string(R"({"status":"success","data":{"resultType":")") +
                        (range ? "matrix" : "vector") + R"(","result":[]}})",
                    "application/json");
    ++answered;
    --in_flight;
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  auto r = FleetAgainst("http://127.0.0.1:" + std::to_string(port), {"--format", "json"});
  server.stop();
  t.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(refused.load(), 0) << "at most " << most.load() << " at once";
  EXPECT_EQ(r.out.find("HTTP 503"), std::string::npos) << r.out;
  auto fleet = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(fleet.is_object()) << r.out;
  EXPECT_EQ(answered.load(), fleet["queries"].get<int>());
}

// A Prometheus of two dcgm-exporter GPUs, n1 reporting to the window's end
// (its last sample 10 s before it) and n2 silent: a range point of the
// temperature shows n2 where `n2_in_point(t, step)`, and an instant read of
// n2's timestamp at `at` gives `n2_newest(at)` (none when 0). Every query
// goes to `queries`.
void ServeASilentGpu(httplib::Server& server, long to_s, std::function<bool(long, long)> n2_in_point,
                     std::function<long(long)> n2_newest, std::vector<std::string>& queries,
                     std::mutex& mu) {
  auto row = [](const std::string& host, bool field, const std::string& points) {
    return R"({"metric":{"Hostname":")" + host + R"(","UUID":"GPU-)" + host +
           R"(","gpu":"0","pci_bus_id":"00000000:01:00.0")" +
           (field ? R"(,"gpudoctor_field":"DCGM_FI_DEV_GPU_TEMP")" : "") + "}," + points + "}";
  };
  auto value = [](long at_s, long v) {
    return R"("value":[)" + std::to_string(at_s) + ",\"" + std::to_string(v) + "\"]";
  };
  server.Post(".*", [=, &queries, &mu](const httplib::Request& req, httplib::Response& res) {
    const std::string q = req.get_param_value("query");
    {
      std::lock_guard<std::mutex> lock(mu);
      queries.push_back(q);
    }
    const bool range = req.path.ends_with("query_range");
    std::string result;
    if (range && q.find("max_over_time(DCGM_FI_DEV_GPU_TEMP[") != std::string::npos) {
      const long start_s = std::lround(std::stod(req.get_param_value("start")));
      const long step_s = std::lround(std::stod(req.get_param_value("step")));
      const long end_s = std::lround(std::stod(req.get_param_value("end")));
      std::string n1 = R"("values":[)", n2 = n1;
      for (long t = start_s; t <= end_s; t += step_s) {
        n1 += (n1.back() == '[' ? "" : ",") + ("[" + std::to_string(t) + ",\"60\"]");
        if (n2_in_point(t, step_s)) {
          n2 += (n2.back() == '[' ? "" : ",") + ("[" + std::to_string(t) + ",\"60\"]");
        }
      }
      result = row("n1", true, n1 + "]") + "," + row("n2", true, n2 + "]");
    } else if (!range) {
      const long at_s = std::lround(std::stod(req.get_param_value("time")));
      if (q == "timestamp(DCGM_FI_DEV_GPU_TEMP)") {
        result = row("n1", false, value(at_s, to_s - 10));
      } else if (q.find("timestamp(DCGM_FI_DEV_GPU_TEMP") != std::string::npos && n2_newest(at_s) > 0) {
        result = row("n2", false, value(at_s, n2_newest(at_s)));
      }
    }
    res.set_content(std::string(R"({"status":"success","data":{"resultType":")") +
                        (range ? "matrix" : "vector") + R"(","result":[)" + result + "]}}",
                    "application/json");
  });
}

// The time of a dcgm-exporter GPU's last sample without a subquery over
// the whole window (on Prometheus it ran past the 30 s timeout from 64
// nodes on): timestamp() at the window's end for the GPUs reporting then,
// and a read over its last stretch only for a GPU silent since, whose age
// is then its last sample's, exactly.
TEST(FleetE2e, ReadsASilentGpusLastSampleOverItsLastStretchOnly) {
  const long from_s = 1767225600, to_s = from_s + 6 * 3600;  // 2026-01-01, 00:00 to 06:00 UTC
  const long silent_end_s = to_s - 2 * 3600;                   // n2's last stretch ends here
  std::mutex mu;
  std::vector<std::string> queries;
  httplib::Server server;
  ServeASilentGpu(
      server, to_s, [&](long t, long) { return t <= silent_end_s; },
      // n2's last sample, 100 s before its last stretch's end.
      [&](long at_s) { return at_s >= silent_end_s ? silent_end_s - 100 : 0; }, queries, mu);
  auto r = FleetJsonAgainst(server, {"--from", "2026-01-01T00:00:00Z", "--to",
                                     "2026-01-01T06:00:00Z", "--resolution", "30s"});
  auto fleet = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(fleet.is_object()) << r.out << r.err;
  std::map<std::string, double> age;
  for (const auto& n : fleet["nodes"]) age[n["node"]] = n.value("last_sample_age_s", -1.0);
  EXPECT_EQ(age["n1"], 10) << fleet["nodes"].dump();
  EXPECT_EQ(age["n2"], 2 * 3600 + 100) << fleet["nodes"].dump();
  // No subquery reaches back more than two stretches (900 s each: the last
  // one with data and the one after it) and the resolution; each names the
  // silent GPU alone.
  for (const auto& q : queries) {
    for (std::size_t at = q.find(':'); at != std::string::npos; at = q.find(':', at + 1)) {
      const std::size_t open = q.rfind('[', at);
      if (open == std::string::npos || q.find(']', open) < at) continue;
      const long span_s = std::stol(q.substr(open + 1, at - open - 1));
      EXPECT_LE(span_s, 900 + 900 + 30) << q;
      EXPECT_NE(q.find("UUID=~\"GPU-n2\""), std::string::npos) << q;
    }
  }
}

// The same over a window that is no whole number of stretches (5 h 55 min:
// 24 stretches of 888 s, the last range point 876 s before the end): a GPU
// silent for the last 10 minutes has samples after the last point, and its
// age is its last sample's, not the last point's.
TEST(FleetE2e, ASilentGpusAgeIsExactWhenTheWindowIsNoWholeNumberOfStretches) {
  const long from_s = 1767225600, to_s = from_s + 5 * 3600 + 55 * 60;
  const long n2_last_s = to_s - 600;
  std::mutex mu;
  std::vector<std::string> queries;
  httplib::Server server;
  ServeASilentGpu(
      server, to_s,
      // A point shows n2 while a sample of it lies in its stretch.
      [&](long t, long step_s) { return t - step_s < n2_last_s; },
      // n2's newest sample at or before the read's time (one every 30 s).
      [&](long at_s) {
        const long until_s = std::min(at_s, n2_last_s);
        return until_s - (until_s - from_s) % 30;
      },
      queries, mu);
  auto r = FleetJsonAgainst(server, {"--from", "2026-01-01T00:00:00Z", "--to", "2026-01-01T05:55:00Z",
                                     "--resolution", "30s", "--stale-after", "12m"});
  auto fleet = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(fleet.is_object()) << r.out << r.err;
  std::map<std::string, json> nodes;
  for (const auto& n : fleet["nodes"]) nodes[n["node"]] = n;
  ASSERT_TRUE(nodes.contains("n2")) << fleet["nodes"].dump();
  EXPECT_EQ(nodes["n2"].value("last_sample_age_s", -1.0), 600) << nodes["n2"].dump();
  EXPECT_FALSE(nodes["n2"].value("stale", true)) << nodes["n2"].dump();
  EXPECT_EQ(nodes["n1"].value("last_sample_age_s", -1.0), 10) << nodes["n1"].dump();
}

// Stretches are laid back from the window's end: over a window that is no
// whole number of stretches (5 h 55 min: 24 stretches of 888 s) the newest
// stretch still ends at the window's end, so a GPU hot only in the last
// 10 minutes is hot now. (The grid once began at the window's start: its
// last point fell 876 s before the end and the hot minutes were in none.)
TEST(FleetE2e, TheNewestStretchEndsAtTheWindowsEnd) {
  const long from_s = 1767225600, to_s = from_s + 5 * 3600 + 55 * 60;
  const long hot_from_s = to_s - 600;
  std::mutex mu;
  std::vector<std::string> ranges;  // "start end step" of each range read
  httplib::Server server;
  server.Post(".*", [&](const httplib::Request& req, httplib::Response& res) {
    const std::string q = req.get_param_value("query");
    const bool range = req.path.ends_with("query_range");
    std::string result;
    const std::string labels =
        R"("Hostname":"n1","UUID":"GPU-n1","gpu":"0","pci_bus_id":"00000000:01:00.0")";
    if (range) {
      const long start_s = std::lround(std::stod(req.get_param_value("start")));
      const long end_s = std::lround(std::stod(req.get_param_value("end")));
      const long step_s = std::lround(std::stod(req.get_param_value("step")));
      {
        std::lock_guard<std::mutex> lock(mu);
        ranges.push_back(std::to_string(start_s) + " " + std::to_string(end_s) + " " +
                         std::to_string(step_s));
      }
      if (q.find("max_over_time(DCGM_FI_DEV_GPU_TEMP[") != std::string::npos) {
        // Each point: the hottest sample of the stretch that ends at it.
        std::string values;
        for (long t = start_s; t <= end_s; t += step_s) {
          const bool hot = t > hot_from_s;
          values += (values.empty() ? "" : ",") + ("[" + std::to_string(t) + ",\"" +
                                                   (hot ? "95" : "60") + "\"]");
        }
        result = "{\"metric\":{" + labels + R"(,"gpudoctor_field":"DCGM_FI_DEV_GPU_TEMP"},"values":[)" +
                 values + "]}";
      }
    } else if (q.find("timestamp(DCGM_FI_DEV_GPU_TEMP)") != std::string::npos) {
      const long at_s = std::lround(std::stod(req.get_param_value("time")));
      result = "{\"metric\":{" + labels + R"(},"value":[)" + std::to_string(at_s) + ",\"" +
               std::to_string(to_s - 10) + "\"]}";
    }
    res.set_content(std::string(R"({"status":"success","data":{"resultType":")") +
                        (range ? "matrix" : "vector") + R"(","result":[)" + result + "]}}",
                    "application/json");
  });
  auto r = FleetJsonAgainst(server, {"--from", "2026-01-01T00:00:00Z", "--to",
                                     "2026-01-01T05:55:00Z", "--resolution", "30s"});
  auto fleet = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(fleet.is_object()) << r.out << r.err;
  // Every range read ends at the window's end, on a whole number of steps.
  for (const auto& range : ranges) {
    long start_s = 0, end_s = 0, step_s = 0;
    ASSERT_EQ(std::sscanf(range.c_str(), "%ld %ld %ld", &start_s, &end_s, &step_s), 3);
    EXPECT_EQ(end_s, to_s) << range;
    EXPECT_EQ((end_s - start_s) % step_s, 0) << range;
  }
  ASSERT_EQ(fleet["gpus"].size(), 1U) << fleet.dump();
  const json& gpu = fleet["gpus"][0];
  EXPECT_EQ(gpu.value("max_temperature_c", 0.0), 95) << gpu.dump();
  EXPECT_EQ(gpu["verdict_now"], "warning") << gpu.dump();
  bool hot_now = false;
  for (const auto& f : gpu["findings"]) {
    hot_now = hot_now || (f["id"] == "thermal.high_temperature" && f["active_now"] == true);
  }
  EXPECT_TRUE(hot_now) << gpu.dump();
  // The strip: 23 cool stretches, then the hot one.
  ASSERT_EQ(fleet["nodes"].size(), 1U) << fleet.dump();
  const json& strip = fleet["nodes"][0]["strip"];
  ASSERT_EQ(strip.size(), 24U) << strip.dump();
  EXPECT_EQ(strip[23], "warning") << strip.dump();
  for (std::size_t i = 0; i + 1 < strip.size(); ++i) EXPECT_EQ(strip[i], "ok") << i << strip.dump();
}

TEST(FleetE2e, ReportsRangeReadsEndAtTheWindowsEnd) {
  // One node scraped every 70 s: a 1 h window (plus the step before it) is
  // no whole number of steps, so a grid laid from the window's start ends
  // 30 s before the window's end and leaves that part unread.
  const long from_s = 1767225600, to_s = from_s + 3600;
  std::mutex mu;
  std::vector<std::string> ranges;  // "start end step" of each range read
  httplib::Server server;
  // report's field read is a form body longer than cpp-httplib parses into
  // parameters (8 KiB, refused 413): the handler reads the raw form.
  server.Post(".*", [&](const httplib::Request& req, httplib::Response& res,
                        const httplib::ContentReader& content) {
    std::string form;
    content([&](const char* data, std::size_t size) {
      form.append(data, size);
      return true;
    });
    auto param = [&form](const std::string& name) {
      const std::size_t at = form.starts_with(name + "=") ? 0 : form.find("&" + name + "=");
      if (at == std::string::npos) return std::string();
      const std::size_t begin = form.find('=', at) + 1;
      return form.substr(begin, form.find('&', begin) - begin);
    };
    const std::string q = param("query");  // escaped: letters and '_' as they are
    const bool range = req.path.ends_with("query_range");
    std::string result;
    const std::string labels = R"("Hostname":"n1","instance":"10.0.0.1:9400")";
    if (range) {
      std::lock_guard<std::mutex> lock(mu);
      ranges.push_back(std::to_string(std::lround(std::stod(param("start")))) + " " +
                       std::to_string(std::lround(std::stod(param("end")))) + " " +
                       std::to_string(std::lround(std::stod(param("step")))));
    } else if (q.find("count_over_time") != std::string::npos) {
      result = "{\"metric\":{" + labels + R"(},"value":[)" + std::to_string(to_s) + R"(,"52"]})";
    } else if (q.find("min_over_time%28timestamp%28") != std::string::npos) {
      result = "{\"metric\":{},\"value\":[" + std::to_string(to_s) + R"(,"3570"]})";
    }
    res.set_content(std::string(R"({"status":"success","data":{"resultType":")") +
                        (range ? "matrix" : "vector") + R"(","result":[)" + result + "]}}",
                    "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  auto r = RunGpudoctor({"report", "--prometheus", "http://127.0.0.1:" + std::to_string(port), "--node",
                         "n1", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-01T01:00:00Z",
                         "--prometheus-timeout", "5s"},
                        "");
  server.stop();
  t.join();
  ASSERT_FALSE(ranges.empty()) << r.out << r.err;
  for (const auto& range : ranges) {
    long start_s = 0, end_s = 0, step_s = 0;
    ASSERT_EQ(std::sscanf(range.c_str(), "%ld %ld %ld", &start_s, &end_s, &step_s), 3);
    EXPECT_EQ(step_s, 70) << range;
    EXPECT_EQ(end_s, to_s) << range;
    EXPECT_EQ((end_s - start_s) % step_s, 0) << range;
    EXPECT_LE(start_s, from_s - step_s) << range;  // the counters' baseline before the window
  }
}

TEST(FleetE2e, VerifiesHttpsWithTheCaFile) {
  if (!std::filesystem::exists("/usr/bin/openssl")) GTEST_SKIP() << "openssl not installed";
  TempDir dir;
  const std::string cert = (dir.path() / "cert.pem").string();
  const std::string key = (dir.path() / "key.pem").string();
  auto made = RunProcess({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                          "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                          "-addext", "subjectAltName=IP:127.0.0.1"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  httplib::SSLServer server(cert.c_str(), key.c_str());
  ASSERT_TRUE(server.is_valid());
  ServeEmptyAnswers(server, "");
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  const std::string url = "https://127.0.0.1:" + std::to_string(port);
  auto trusted = FleetAgainst(url, {"--prometheus-ca-file", cert});
  auto untrusted = FleetAgainst(url, {});
  server.stop();
  t.join();
  EXPECT_EQ(trusted.exit_code, 0) << trusted.err;
  EXPECT_EQ(untrusted.exit_code, 3) << untrusted.out;
  EXPECT_NE(untrusted.err.find("TLS failed"), std::string::npos) << untrusted.err;
}

}  // namespace
}  // namespace gpudoctor::test
