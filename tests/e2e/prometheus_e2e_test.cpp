// End-to-end with a real Prometheus (Debian package prometheus) on loopback:
// it scrapes `gpudoctor agent` on the fake NVML every second and evaluates
// deploy/prometheus/gpudoctor-alerts.yml; the scenario (agent_trouble.json)
// loses GPU 2 at 3 s. The query API must show the series and the GPU-lost
// alert must reach `firing`, within 90 s. Both processes are stopped
// (SIGTERM, then SIGKILL by BackgroundProcess) whatever happens.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

// A free loopback port (the kernel picks it; released before returning).
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

json GetJson(httplib::Client& c, const std::string& path) {
  auto r = c.Get(path.c_str());
  if (!r || r->status != 200) return json();
  return json::parse(r->body, nullptr, false);
}

std::string AlertState(const json& alerts, const std::string& name) {
  if (!alerts.is_object() || !alerts.contains("data")) return "";
  for (const auto& a : alerts["data"]["alerts"]) {
    if (a["labels"]["alertname"] == name) return a["state"].get<std::string>();
  }
  return "";
}

TEST(PrometheusE2e, ScrapesTheAgentAndTheGpuLostAlertFires) {
  if (!std::filesystem::exists("/usr/bin/prometheus")) {
    GTEST_SKIP() << "prometheus not installed (Debian package prometheus)";
  }
  TempDir root, data, prom;
  root.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  const int agent_port = FreePort();
  const int prom_port = FreePort();
  ASSERT_TRUE(agent_port > 0 && prom_port > 0 && agent_port != prom_port);
  const std::string rules =
      std::string(TEST_DATA_DIR) + "/../../deploy/prometheus/gpudoctor-alerts.yml";
  const std::string config =
      prom.Write("prometheus.yml",
                 "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                 "rule_files:\n  - " +
                     rules +
                     "\nscrape_configs:\n  - job_name: gpudoctor\n    static_configs:\n"
                     "      - targets: ['127.0.0.1:" +
                     std::to_string(agent_port) + "']\n");
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root", root.path().string(),
                     "--interval", "200ms", "--window", "2s", "--evaluate-every", "400ms",
                     "--facts-every", "1h", "--no-kernel-log", "--run-for", "120s", "--listen",
                     "127.0.0.1:" + std::to_string(agent_port)}),
      FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/agent_trouble.json"),
      (data.path() / "agent.log").string());
  BackgroundProcess prometheus({"/usr/bin/prometheus", "--config.file=" + config,
                                "--storage.tsdb.path=" + (prom.path() / "tsdb").string(),
                                "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)},
                               {}, (prom.path() / "prometheus.log").string());
  ASSERT_TRUE(agent.started() && prometheus.started());

  httplib::Client c("127.0.0.1", prom_port);
  c.set_connection_timeout(2);
  c.set_read_timeout(5);
  json lost, alerts;
  std::string state;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < until && state != "firing") {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    lost = GetJson(c, "/api/v1/query?query=gpudoctor_gpus_lost");
    alerts = GetJson(c, "/api/v1/alerts");
    state = AlertState(alerts, "GpudoctorGpuLost");
  }
  EXPECT_EQ(state, "firing") << "last query: " << lost.dump() << "\nlast alerts: " << alerts.dump();
  ASSERT_TRUE(lost.is_object() && lost.contains("data")) << lost.dump();
  ASSERT_EQ(lost["data"]["result"].size(), 1u) << lost.dump();
  EXPECT_EQ(lost["data"]["result"][0]["value"][1], "1");
  EXPECT_EQ(lost["data"]["result"][0]["metric"]["job"], "gpudoctor");
  // The agent holds an NVML Xid a few seconds for the kernel log's line of
  // it (counted once, either way): the counter may follow the alert.
  json xid;
  const auto xid_until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    xid = GetJson(c, "/api/v1/query?query=gpudoctor_xid_events_total%7Bxid%3D%2279%22%7D");
    if (xid.is_object() && xid.contains("data") && !xid["data"]["result"].empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  } while (std::chrono::steady_clock::now() < xid_until);
  ASSERT_TRUE(xid.is_object() && xid.contains("data")) << xid.dump();
  ASSERT_EQ(xid["data"]["result"].size(), 1u) << xid.dump();
  EXPECT_EQ(xid["data"]["result"][0]["metric"]["pci_bus_id"], "0000:1a:00.0");

  prometheus.Signal(SIGTERM);
  agent.Signal(SIGTERM);
  EXPECT_NE(prometheus.Wait(std::chrono::seconds(20)), -1);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);
}

}  // namespace
}  // namespace gpudoctor::test
