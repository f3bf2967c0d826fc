// deploy/grafana/gpudoctor.json against a real Prometheus (Debian package
// prometheus) scraping `gpudoctor agent` on the fake NVML (agent_trouble.json:
// GPU 0 heats up into thermal slowdown, GPU 1 is held by the power brake,
// GPU 2 reports Xid 79 and is lost; a python3 process on each; here GPU 0
// also on a completed NVLink fabric, and one ACTIVE NDR InfiniBand port in
// the --root tree, as the real capture's files read). Every panel's PromQL,
// with the dashboard's variables substituted, must be accepted by the query
// API, and every one must return data for this scenario; so must the
// selectors of the job and instance variables.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "support/background_process.h"
#include "support/loopback.h"
#include "support/temp_files.h"
#include "support/test_prometheus.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

json ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str(), nullptr, false);
}

// Grafana's variables as a dashboard user would have them for this agent.
std::string SubstituteDashboardVariables(std::string expr, const std::string& instance) {
  const std::pair<const char*, std::string> vars[] = {{"$__rate_interval", "5s"},
                                                      {"$__interval", "1s"},
                                                      {"$__range", "2m"},
                                                      {"$instance", instance},
                                                      {"$job", "gpudoctor"}};
  for (const auto& [name, value] : vars) {
    for (auto at = expr.find(name); at != std::string::npos; at = expr.find(name, at + value.size())) {
      expr.replace(at, std::string(name).size(), value);
    }
  }
  return expr;
}

struct DashboardQuery {
  std::string where;  // panel title and refId, or the variable
  std::string expr;   // substituted
};

std::vector<DashboardQuery> QueriesOf(const json& dashboard, const std::string& instance) {
  std::vector<DashboardQuery> out;
  for (const auto& panel : dashboard["panels"]) {
    if (panel.value("type", "") == "row") {
      // A row holds no query; a collapsed one keeps its panels inside.
      EXPECT_FALSE(panel.contains("targets")) << panel.dump();
      EXPECT_TRUE(panel.value("panels", json::array()).empty()) << "collapsed rows hide panels from this test";
      continue;
    }
    for (const auto& target : panel.at("targets")) {
      out.push_back({panel["title"].get<std::string>() + " / " + target["refId"].get<std::string>(),
                     SubstituteDashboardVariables(target["expr"].get<std::string>(), instance)});
    }
  }
  // label_values(SELECTOR, label): the selector must find series.
  const std::regex label_values(R"(^label_values\((.*), *([a-z_]+)\)$)");
  for (const auto& var : dashboard["templating"]["list"]) {
    if (var["type"] != "query") continue;
    const std::string q = var["query"]["query"].get<std::string>();
    std::smatch m;
    if (!std::regex_match(q, m, label_values)) {
      out.push_back({"variable " + var["name"].get<std::string>(), q});  // fails the test below
      continue;
    }
    out.push_back({"variable " + var["name"].get<std::string>(),
                   "count by (" + m[2].str() + ") (" +
                       SubstituteDashboardVariables(m[1].str(), instance) + ")"});
  }
  return out;
}

TEST(GrafanaDashboard, EveryExpressionIsValidPromqlAndHasDataForTheScenario) {
  if (!TestPrometheus::Installed()) {
    GTEST_SKIP() << "prometheus not installed (Debian package prometheus)";
  }
  const json dashboard = ReadJsonFile(std::string(TEST_DATA_DIR) + "/../../deploy/grafana/gpudoctor.json");
  ASSERT_TRUE(dashboard.is_object() && dashboard.contains("panels")) << "gpudoctor.json does not parse";
  TempDir root, data;
  root.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  // The fabric row's panels: one InfiniBand port (files as in the real HGX
  // capture) and GPU 0 on a completed NVLink fabric that reports its health.
  const std::string port = "sys/class/infiniband/mlx5_0/ports/1/";
  root.Write(port + "state", "4: ACTIVE\n");
  root.Write(port + "phys_state", "5: LinkUp\n");
  root.Write(port + "rate", "400 Gb/sec (4X NDR)\n");
  root.Write(port + "link_layer", "InfiniBand\n");
  for (const char* counter : {"symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors"}) {
    root.Write(port + "counters/" + counter, "0\n");
  }
  json scenario = ReadJsonFile(std::string(TEST_DATA_DIR) + "/scenarios/agent_trouble.json");
  ASSERT_TRUE(scenario.is_object());
  scenario["gpus"][0]["fabric"] = {{"state", "completed"},       {"status", "NVML_SUCCESS"},
                                   {"degraded_bandwidth", false}, {"route_recovery", false},
                                   {"route_unhealthy", false},    {"access_timeout_recovery", false}};
  scenario["gpus"][0]["nvlink_p2p"] = "ok";
  const std::string scenario_path = data.Write("scenario.json", scenario.dump());
  const int agent_port = FreeLoopbackPort();
  ASSERT_GT(agent_port, 0);
  const std::string instance = "127.0.0.1:" + std::to_string(agent_port);
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root", root.path().string(),
                     "--interval", "200ms", "--window", "2s", "--evaluate-every", "400ms",
                     "--facts-every", "1h", "--no-kernel-log", "--expected-gpus", "3",
                     "--run-for", "120s", "--listen", instance}),
      FakeNvmlEnv(scenario_path), (data.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  TestPrometheus prometheus({instance});
  ASSERT_TRUE(prometheus.started());

  const auto queries = QueriesOf(dashboard, instance);
  ASSERT_GE(queries.size(), 15u);
  // Until every query has data (the lost GPU, the findings and the rates
  // need a few scrapes), bounded.
  std::vector<json> answers(queries.size());
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  for (bool all = false; !all && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    all = true;
    for (std::size_t i = 0; i < queries.size(); ++i) {
      if (!ResultOf(answers[i]).empty()) continue;
      answers[i] = prometheus.Query(queries[i].expr);
      all = all && !ResultOf(answers[i]).empty();
    }
  }
  for (std::size_t i = 0; i < queries.size(); ++i) {
    EXPECT_EQ(answers[i].value("status", ""), "success")
        << queries[i].where << ": " << queries[i].expr << "\n" << answers[i].dump();
    EXPECT_FALSE(ResultOf(answers[i]).empty())
        << queries[i].where << " has no data: " << queries[i].expr << "\n" << answers[i].dump();
  }
  // The process table names GPU 0's process.
  bool process_row = false;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    if (queries[i].where.rfind("Processes and pods", 0) != 0) continue;
    for (const auto& row : ResultOf(answers[i])) {
      process_row = process_row || (row["metric"].value("gpu", "") == "0" &&
                                    row["metric"].value("pid", "") == "4242" &&
                                    row["metric"].value("process", "") == "python3");
    }
  }
  EXPECT_TRUE(process_row);
  EXPECT_TRUE(prometheus.Stop());
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);
}

TEST(GrafanaDashboard, SubstitutesVariablesAsGrafanaWould) {
  EXPECT_EQ(SubstituteDashboardVariables(
                "rate(x{job=~\"$job\", instance=~\"$instance\"}[$__rate_interval]) + y[$__range]",
                "127.0.0.1:9"),
            "rate(x{job=~\"gpudoctor\", instance=~\"127.0.0.1:9\"}[5s]) + y[2m]");
}

}  // namespace
}  // namespace gpudoctor::test
