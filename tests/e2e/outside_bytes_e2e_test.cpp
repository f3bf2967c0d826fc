// End-to-end, any bytes in every output: the real binary on the fake NVML
// with one GPU (and one compute process) named by each case of
// support/hostile_bytes.h, a kernel log whose Xid lines carry the same names,
// a host name and a file name with them. Every output must be valid UTF-8,
// every JSON must parse, no terminal output may hold a control character or
// escape, and Prometheus must accept /metrics (type_error 316, exit 134, a
// 500 and a rejected scrape on the main of issue 28).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/fake_host.h"
#include "support/hostile_bytes.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace outside_bytes_e2e_test {

using nlohmann::json;

const std::string kR = "\xEF\xBF\xBD";  // U+FFFD

std::string BusId(std::size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0000:%02zx:00.0", i + 1);
  return buf;
}

class OutsideBytesE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    json gpus = json::array();
    std::vector<std::string> buses;
    std::string kern_log;
    const std::time_t minute_ago = std::time(nullptr) - 60;
    char stamp[64];
    std::tm tm{};
    gmtime_r(&minute_ago, &tm);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S.000000+00:00", &tm);
    std::string kmsg = "6,1,1000,-;Linux version 6.1.0\n";
    for (std::size_t i = 0; i < HostileNames().size(); ++i) {
      const std::string& name = HostileNames()[i].bytes;
      gpus.push_back(json{{"name_hex", HexOf(name)},
                          {"pci_bus_id", BusId(i)},
                          {"temperature_c", 50},
                          {"utilization_gpu_percent", 60},
                          {"processes", json::array({json{{"pid", 4000 + i},
                                                          {"name_hex", HexOf(name)},
                                                          {"used_memory_bytes", 1 << 30},
                                                          {"sm_util_percent", 40}}})}});
      buses.push_back(BusId(i));
      const std::string xid = "NVRM: Xid (PCI:" + BusId(i).substr(0, 10) + "): 13, pid=" +
                              std::to_string(4000 + i) + ", name=" + name +
                              ", Graphics SM Warp Exception on (GPC 0, TPC 0): " + name;
      kern_log += std::string(stamp) + " gpu-node-7 kernel: " + xid + "\n";
      kmsg += "4," + std::to_string(2 + i) + ",999500000,-;" + xid + "\n";
    }
    // A log cut short by a crash ends in NUL bytes (beyond the head that
    // decides whether a file is text at all).
    for (int n = 0; n < 50; ++n) {
      kern_log += std::string(stamp) + " gpu-node-7 kernel: usb 1-1: new high-speed USB device number " +
                  std::to_string(n) + "\n";
    }
    kern_log += std::string(stamp) + " gpu-node-7 kernel: " + kNulLine + "\n";
    scenario_ = dir_.Write("hostile.json", json{{"gpus", gpus}}.dump());
    WriteQuietHost(root_, buses);
    root_.Write("var/log/kern.log", kern_log);
    root_.Write("proc/sys/kernel/hostname", HostileNames()[8].bytes + "\n");
    const long long now = static_cast<long long>(std::time(nullptr));
    root_.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime " + std::to_string(now - 1000) + "\n");
    root_.Write("dev/kmsg", kmsg);
    log_file_ = dir_.Write("kern-" + HostileNames()[5].bytes + "-" + HostileNames()[8].bytes + ".log", kern_log);
  }

  // What every output must be; `terminal`: also free of control characters.
  static void ExpectSafe(const std::string& what, const std::string& text, bool terminal) {
    EXPECT_TRUE(IsUtf8ForTest(text)) << what << ": " << FirstBadByte(text);
    if (terminal) {
      EXPECT_EQ(text.find('\x1b'), std::string::npos) << what << ": an ESC reached the terminal";
      EXPECT_FALSE(HasTerminalControl(text)) << what;
    }
  }
  static json ExpectJson(const std::string& what, const ProcessResult& r) {
    EXPECT_NE(r.exit_code, -1) << what << " died of signal " << r.signal << ": " << r.err;
    EXPECT_LE(r.exit_code, 2) << what << ": " << r.err;
    ExpectSafe(what + " stdout", r.out, false);
    ExpectSafe(what + " stderr", r.err, true);
    json doc = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << what << ": not JSON: " << r.out.substr(0, 400);
    return doc;
  }
  static void ExpectText(const std::string& what, const ProcessResult& r) {
    EXPECT_NE(r.exit_code, -1) << what << " died of signal " << r.signal << ": " << r.err;
    EXPECT_LE(r.exit_code, 2) << what << ": " << r.err;
    ExpectSafe(what + " stdout", r.out, true);
    ExpectSafe(what + " stderr", r.err, true);
    EXPECT_NE(r.out.find("h6-caf" + kR), std::string::npos) << what << ": " << r.out.substr(0, 2000);
  }
  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  TempDir dir_;
  TempDir root_;
  std::string scenario_;
  std::string log_file_;
};

TEST_F(OutsideBytesE2E, StatusJsonAndTable) {
  auto status = RunGpudoctor({"status", "--json"}, scenario_);
  EXPECT_EQ(status.out.find('\x1b'), std::string::npos);
  EXPECT_NE(status.out.find("h8-\\u001b[2J"), std::string::npos);
  auto doc = ExpectJson("status --json", status);
  ASSERT_EQ(doc["gpus"].size(), HostileNames().size());
  EXPECT_EQ(doc["gpus"][6]["name"], "h6-caf" + kR + "-na" + kR + "ve");
  // JSON keeps the escape as a code point, written as JSON's own escape.
  EXPECT_EQ(doc["gpus"][8]["processes"][0]["name"], "h8-\x1b[2J\x1b]0;owned\x07\x1b[31mred-end");
  ExpectText("status", RunGpudoctor({"status"}, scenario_));
}

TEST_F(OutsideBytesE2E, FactsJsonAndText) {
  const std::vector<std::string> base = {"facts", "--root", root_.path().string(), "--window", "100ms"};
  auto args = base;
  args.push_back("--json");
  auto doc = ExpectJson("facts --json", RunGpudoctor(args, scenario_));
  EXPECT_NE(doc.dump().find("h6-caf"), std::string::npos);
  auto text = RunGpudoctor(base, scenario_);
  ExpectSafe("facts stdout", text.out, true);
  ExpectSafe("facts stderr", text.err, true);
}

TEST_F(OutsideBytesE2E, DiagnoseEveryFormat) {
  const std::vector<std::string> base = {"diagnose", "--root", root_.path().string(), "--duration", "1s",
                                         "--interval", "500ms", "--lang", "en"};
  auto args = base;
  args.insert(args.end(), {"--format", "json"});
  auto doc = ExpectJson("diagnose --format json", RunGpudoctor(args, scenario_));
  EXPECT_EQ(doc["gpus"].size(), HostileNames().size());
  ExpectText("diagnose", RunGpudoctor(base, scenario_));
  for (const std::string format : {"markdown", "html"}) {
    auto to_file = base;
    const std::string out = (dir_.path() / ("report." + format)).string();
    to_file.insert(to_file.end(), {"--format", format, "-o", out});
    auto r = RunGpudoctor(to_file, scenario_);
    EXPECT_LE(r.exit_code, 2) << format << r.err;
    const std::string body = ReadFile(out);
    ExpectSafe("diagnose --format " + format, body, true);
    EXPECT_NE(body.find("h6-caf" + kR), std::string::npos) << format;
  }
}

TEST_F(OutsideBytesE2E, AnalyzeXidLinesAndFileName) {
  for (const std::string format : {"json", "text", "markdown", "html"}) {
    auto r = RunGpudoctor({"analyze", "--lang", "zh", "--format", format, log_file_}, "");
    if (format == "json") {
      auto doc = ExpectJson("analyze --format json", r);
      ASSERT_FALSE(doc["events"].empty()) << r.out.substr(0, 1000);
      EXPECT_NE(doc.dump().find("h5-"), std::string::npos);
    } else {
      EXPECT_LE(r.exit_code, 2) << format << r.err;
      ExpectSafe("analyze --format " + format + " stdout", r.out, true);
      ExpectSafe("analyze --format " + format + " stderr", r.err, true);
    }
  }
}

// Markdown viewers render raw HTML: a process name from the kernel log
// holding a script tag arrives as text, not as markup.
TEST_F(OutsideBytesE2E, MarkdownCarriesNoHtmlFromOutside) {
  const std::string log =
      dir_.Write("html.log",
                 "Dec  6 10:00:00 node kernel: NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, "
                 "name=<script>alert(1)</script>&x, Graphics Exception: ESR 0x404600=0x80000002\n");
  auto r = RunGpudoctor({"analyze", "--format", "markdown", log}, "");
  EXPECT_LE(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out.find("<script>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("&lt;script&gt;alert(1)&lt;/script&gt;&amp;x"), std::string::npos) << r.out;
}

// The agent keeps running with such names, serves valid exposition, status
// and report, and what it stored reads back as valid JSON.
TEST_F(OutsideBytesE2E, AgentMetricsApiAndStore) {
  if (!std::filesystem::exists("/usr/bin/promtool")) GTEST_SKIP() << "promtool not installed";
  TempDir data;
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  ASSERT_GT(port, 0);
  BackgroundProcess agent(
      GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--root", root_.path().string(),
                     "--interval", "200ms", "--window", "2s", "--evaluate-every", "400ms", "--facts-every",
                     "1h", "--run-for", "60s", "--listen", "127.0.0.1:" + std::to_string(port)}),
      FakeNvmlEnv(scenario_), (dir_.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  c.set_read_timeout(10);
  std::string metrics;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    auto r = c.Get("/metrics");
    if (r && r->status == 200 && r->body.find("h6-caf") != std::string::npos &&
        r->body.find("gpudoctor_xid_events_total{") != std::string::npos) {
      metrics = r->body;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_FALSE(metrics.empty()) << ReadFile((dir_.path() / "agent.log").string());
  ExpectSafe("/metrics", metrics, false);
  ProcessOptions o;
  o.stdin_text = metrics;
  auto lint = RunProcess({"/usr/bin/promtool", "check", "metrics"}, o);
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_EQ(lint.err.find("parsing error"), std::string::npos) << lint.err;
  auto open_metrics = c.Get("/metrics", {{"Accept", "application/openmetrics-text; version=1.0.0"}});
  ASSERT_TRUE(open_metrics);
  ExpectSafe("/metrics (OpenMetrics)", open_metrics->body, false);
  for (const std::string path : {"/api/v1/status", "/api/v1/report?since=5m"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path << ": " << r->body.substr(0, 300);
    ExpectSafe(path, r->body, false);
    EXPECT_FALSE(json::parse(r->body, nullptr, false).is_discarded()) << path;
  }
  agent.Signal(SIGTERM);
  const int status = agent.Wait(std::chrono::seconds(20));
  ASSERT_NE(status, -1) << "the agent did not stop";
  EXPECT_TRUE(WIFEXITED(status)) << "the agent died of a signal: "
                                 << ReadFile((dir_.path() / "agent.log").string());
  ExpectSafe("agent log", ReadFile((dir_.path() / "agent.log").string()), true);
  auto stored = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m",
                              "--format", "json"}, "");
  auto doc = ExpectJson("report --format json", stored);
  EXPECT_NE(doc.dump().find("h6-caf"), std::string::npos);
  ExpectText("report", RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m"}, ""));
}

}  // namespace outside_bytes_e2e_test
}  // namespace gpudoctor::test
