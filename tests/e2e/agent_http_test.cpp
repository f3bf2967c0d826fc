// End-to-end: `gpudoctor agent --listen` on the fake NVML (agent_trouble.json:
// GPU 2 lost after an Xid 79 at 3 s) serves /metrics in both formats,
// /healthz, /api/v1/status and /api/v1/report; bad parameters are 400 and
// unknown paths 404; a port in use is a one-line error and exit 3.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "analyze/input_file.h"
#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

class AgentHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    root_.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
    root_.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  }
  std::vector<std::string> AgentArgs(int port) const {
    return GpudoctorArgv({"agent", "--data-dir", data_.path().string(), "--root",
                          root_.path().string(), "--interval", "200ms", "--window", "2s",
                          "--evaluate-every", "400ms", "--facts-every", "1h", "--no-kernel-log",
                          "--run-for", "60s", "--listen", "127.0.0.1:" + std::to_string(port)});
  }
  TempDir root_;
  TempDir data_;
};

// Waits (bounded) until `path` answers 200.
bool WaitFor200(httplib::Client& c, const std::string& path, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (auto r = c.Get(path.c_str()); r && r->status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST_F(AgentHttp, ServesMetricsStatusReportAndErrors) {
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  ASSERT_GT(port, 0);
  BackgroundProcess agent(AgentArgs(port),
                          FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/agent_trouble.json"),
                          (data_.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  c.set_read_timeout(10);
  ASSERT_TRUE(WaitFor200(c, "/healthz", std::chrono::seconds(20)));
  // 50 scrapers connecting at once fit in the listen backlog (the agent
  // listens with SOMAXCONN). ss prints "LISTEN 0 <backlog> ...".
  {
    auto ss = RunProcess({"/usr/bin/ss", "-ltnH", "sport = :" + std::to_string(port)});
    ASSERT_EQ(ss.exit_code, 0) << ss.err;
    std::istringstream fields(ss.out);
    std::string state;
    long queued = -1;
    long backlog = -1;
    fields >> state >> queued >> backlog;
    EXPECT_EQ(state, "LISTEN") << ss.out;
    EXPECT_GE(backlog, 50) << ss.out;
  }
  // GPU 2 reports Xid 79 and is lost at 3 s: wait (bounded) until the agent
  // counts both.
  const std::string lost = "\ngpudoctor_gpus_lost 1\n";
  const std::string xid79 =
      "pci_bus_id=\"0000:1a:00.0\",model=\"NVIDIA H100 80GB HBM3\",xid=\"79\"} 1\n";
  std::string text;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < until) {
    auto r = c.Get("/metrics");
    ASSERT_TRUE(r);
    text = r->body;
    if (text.find(lost) != std::string::npos && text.find(xid79) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_NE(text.find(lost), std::string::npos) << text;
  EXPECT_NE(text.find(xid79), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE gpudoctor_xid_events_total counter"), std::string::npos);

  auto plain = c.Get("/metrics");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  if (std::filesystem::exists("/usr/bin/promtool")) {
    ProcessOptions o;
    o.stdin_text = plain->body;
    auto lint = RunProcess({"/usr/bin/promtool", "check", "metrics"}, o);
    EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
    EXPECT_EQ(lint.out + lint.err, "");
  }
  // What Prometheus sends: the body comes gzipped exactly once, and
  // decompresses to an exposition of the same families.
  {
    httplib::Client raw("127.0.0.1", port);
    raw.set_decompress(false);
    raw.set_read_timeout(10);
    auto gz = raw.Get("/metrics", {{"Accept-Encoding", "gzip"}});
    ASSERT_TRUE(gz);
    EXPECT_EQ(gz->status, 200);
    EXPECT_EQ(gz->get_header_value_count("Content-Encoding"), 1u);
    EXPECT_EQ(gz->get_header_value("Content-Encoding"), "gzip");
    EXPECT_EQ(gz->get_header_value("Vary"), "Accept-Encoding");
    auto body = GunzipData(gz->body, "gzip /metrics", 0);
    ASSERT_TRUE(body) << body.error().message;
    EXPECT_NE(body->find(lost), std::string::npos);
    EXPECT_NE(body->find("# TYPE gpudoctor_xid_events_total counter"), std::string::npos);
    auto identity = raw.Get("/metrics", {{"Accept-Encoding", "gzip;q=0, identity"}});
    ASSERT_TRUE(identity);
    EXPECT_FALSE(identity->has_header("Content-Encoding"));
    EXPECT_NE(identity->body.find(lost), std::string::npos);
  }
  auto om = c.Get("/metrics", {{"Accept", "application/openmetrics-text; version=1.0.0"}});
  ASSERT_TRUE(om);
  EXPECT_EQ(om->get_header_value("Content-Type"),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_TRUE(om->body.ends_with("# EOF\n"));
  EXPECT_NE(om->body.find("# TYPE gpudoctor_xid_events counter"), std::string::npos);

  auto status = c.Get("/api/v1/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
  auto doc = json::parse(status->body, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << status->body;
  EXPECT_EQ(doc["schema"], "gpudoctor.status/v1");
  EXPECT_EQ(doc["gpus"].size(), 3u);

  auto report = c.Get("/api/v1/report?since=1h");
  ASSERT_TRUE(report);
  EXPECT_EQ(report->status, 200) << report->body;
  auto rdoc = json::parse(report->body, nullptr, false);
  ASSERT_FALSE(rdoc.is_discarded()) << report->body;
  EXPECT_EQ(rdoc["schema"], "gpudoctor.report/v1");
  EXPECT_NE(report->body.find("gpu.lost"), std::string::npos);

  for (const char* bad : {"/api/v1/report?since=soon", "/api/v1/report?colour=red"}) {
    auto r = c.Get(bad);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << bad;
    EXPECT_EQ(std::count(r->body.begin(), r->body.end(), '\n'), 1) << r->body;
  }
  auto missing = c.Get("/no/such/path");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);

  agent.Signal(SIGTERM);
  const int st = agent.Wait(std::chrono::seconds(20));
  EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
}

TEST_F(AgentHttp, HealthzIs503WhileNotSampling) {
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  ASSERT_GT(port, 0);
  // No scenario: the fake NVML says the driver is not loaded; the agent
  // stays up, retrying, but samples nothing.
  BackgroundProcess agent(AgentArgs(port), FakeNvmlEnv(""), (data_.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  c.set_read_timeout(10);
  int status = 0;
  std::string body;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < until && status == 0) {
    if (auto r = c.Get("/healthz")) {
      status = r->status;
      body = r->body;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  EXPECT_EQ(status, 503);
  EXPECT_EQ(body.rfind("not sampling", 0), 0u) << body;
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);
}

TEST_F(AgentHttp, PortInUseIsOneLineErrorAndExit3) {
  BoundPort taken;
  ASSERT_GT(taken.port, 0);
  ASSERT_TRUE(taken.Listen());
  ProcessOptions o;
  o.env = FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/healthy_busy.json");
  o.timeout = std::chrono::seconds(30);
  auto argv = AgentArgs(taken.port);
  auto r = RunProcess(argv, o);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("127.0.0.1:" + std::to_string(taken.port) + ": cannot listen"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace gpudoctor::test
