// The agent's HTTP endpoint under load and abuse, end to end on the fake
// NVML: slow clients holding connections with half-sent requests, very long
// URLs and headers, garbage and unknown paths, wrk with many connections.
// Through all of it a normal scrape is still answered, the agent keeps
// sampling (its samples counter moves on), and it stops cleanly afterwards.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

class AgentHttpAbuse : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = FreeLoopbackPort();
    ASSERT_GT(port_, 0);
    agent_ = std::make_unique<BackgroundProcess>(
        GpudoctorArgv({"agent", "--data-dir", data_.path().string(), "--interval", "200ms",
                       "--no-kernel-log", "--run-for", "300s", "--listen",
                       "127.0.0.1:" + std::to_string(port_)}),
        FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/eight_gpus.json"),
        (data_.path() / "agent.log").string());
    ASSERT_TRUE(agent_->started());
    ASSERT_GE(SamplesWritten(std::chrono::seconds(30)), 1) << Log();
  }
  void TearDown() override {
    if (!agent_) return;
    agent_->Signal(SIGTERM);
    const int st = agent_->Wait(std::chrono::seconds(30));
    EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) << st << "\n" << Log();
  }
  std::string Log() const {
    std::ifstream in(data_.path() / "agent.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // The agent's samples-written counter from a normal scrape, retried until
  // one is answered or `limit` passes; -1 when none was.
  long SamplesWritten(std::chrono::seconds limit) const {
    static const std::regex kWritten(R"(gpudoctor_agent_samples_total\{result="written"\} (\d+))");
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      httplib::Client c("127.0.0.1", port_);
      c.set_connection_timeout(5);
      c.set_read_timeout(20);
      if (auto r = c.Get("/metrics"); r && r->status == 200) {
        std::smatch m;
        if (std::regex_search(r->body, m, kWritten)) return std::stol(m[1]);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return -1;
  }
  // Waits (bounded) until the counter passes `after`; the last value seen.
  long SamplesAfter(long after) const {
    long now = -1;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < until) {
      now = SamplesWritten(std::chrono::seconds(30));
      if (now > after) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return now;
  }
  long ResidentKb() const {
    std::ifstream in("/proc/" + std::to_string(agent_->pid()) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
  }
  // The status line of what the agent answers to `request`, sent raw.
  std::string StatusLineFor(const std::string& request) const {
    RawConnection c(port_);
    EXPECT_TRUE(c.connected());
    c.Send(request);
    const std::string reply = c.Receive(4096, 10000);
    return reply.substr(0, reply.find("\r\n"));
  }

  TempDir data_;
  int port_ = 0;
  std::unique_ptr<BackgroundProcess> agent_;
};

TEST_F(AgentHttpAbuse, SlowClientsHoldingConnectionsDoNotStopScrapesOrSampling) {
  // 150 connections, each with a request sent up to the middle of a header
  // and then nothing (from one address: the agent keeps 64 of them).
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 150; ++i) {
    slow.push_back(std::make_unique<RawConnection>(port_));
    ASSERT_TRUE(slow.back()->connected()) << i;
    slow.back()->Send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  }
  const long before = SamplesWritten(std::chrono::seconds(60));
  ASSERT_GE(before, 1) << "no scrape answered while 150 slow clients held connections\n" << Log();
  EXPECT_GT(SamplesAfter(before), before) << "sampling stopped under slow clients\n" << Log();
  // The server does not keep a half-sent request forever: it closes the
  // connection once the request head is overdue (10 s).
  const std::string reply = slow.front()->Receive(4096, 60000);
  EXPECT_TRUE(reply.empty() || reply.rfind("HTTP/1.1 400 ", 0) == 0) << reply;
  EXPECT_TRUE(slow.front()->closed_by_peer()) << reply;
}

TEST_F(AgentHttpAbuse, OversizedAndMalformedRequestsAreRefusedAndTheAgentCarriesOn) {
  // A URL of 100 000 bytes: refused, not parsed (it does not fit the
  // connection's 32 KiB buffer).
  const std::string long_url = StatusLineFor("GET /metrics?" + std::string(100000, 'a') +
                                             " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(long_url.empty() || long_url.find(" 4") != std::string::npos) << long_url;
  // A 1 MiB header line.
  const std::string long_header = StatusLineFor("GET /metrics HTTP/1.1\r\nX-Big: " +
                                                std::string(1 << 20, 'b') + "\r\n\r\n");
  EXPECT_TRUE(long_header.empty() || long_header.find(" 4") != std::string::npos) << long_header;
  // 10 000 small headers.
  std::string many = "GET /metrics HTTP/1.1\r\n";
  for (int i = 0; i < 10000; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
  const std::string many_headers = StatusLineFor(many + "\r\n");
  EXPECT_TRUE(many_headers.empty() || many_headers.find(" 200") != std::string::npos ||
              many_headers.find(" 4") != std::string::npos)
      << many_headers;
  // Not HTTP at all, and binary garbage.
  EXPECT_EQ(StatusLineFor("HELLO\r\n\r\n").find(" 200"), std::string::npos);
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 131 + 7) % 256);
  EXPECT_EQ(StatusLineFor(garbage).find(" 200"), std::string::npos);
  // Unknown paths, methods and a path-traversal attempt.
  EXPECT_EQ(StatusLineFor("GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"),
            "HTTP/1.1 404 Not Found");
  EXPECT_EQ(StatusLineFor("GET /metrics/extra HTTP/1.1\r\nHost: x\r\n\r\n"),
            "HTTP/1.1 404 Not Found");
  EXPECT_EQ(StatusLineFor("DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n").find(" 200"),
            std::string::npos);
  EXPECT_EQ(StatusLineFor("POST /api/v1/report HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"
                          "since")
                .find(" 200"),
            std::string::npos);
  // A report query with a huge, and a binary, parameter: 400, one line.
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(20);
  auto big = c.Get(("/api/v1/report?since=" + std::string(4000, '9') + "h").c_str());
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 400) << big->body;
  EXPECT_EQ(std::count(big->body.begin(), big->body.end(), '\n'), 1) << big->body;
  auto binary = c.Get("/api/v1/report?since=%00%ff%fe");
  ASSERT_TRUE(binary);
  EXPECT_EQ(binary->status, 400) << binary->body;

  const long before = SamplesWritten(std::chrono::seconds(30));
  ASSERT_GE(before, 1) << Log();
  EXPECT_GT(SamplesAfter(before), before) << Log();
}

TEST_F(AgentHttpAbuse, WrkWithManyConnectionsThenMemoryStaysFlat) {
  if (!std::filesystem::exists("/usr/bin/wrk")) {
    GTEST_SKIP() << "wrk is not installed (scripts/bootstrap.sh installs it)";
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(port_) + "/metrics";
  auto round = [&] {
    // 60 connections: within the 64 the agent allows one client address.
    auto r = RunProcess({"/usr/bin/wrk", "-t2", "-c60", "-d3s", "--timeout", "10s", url});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Requests/sec"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("Non-2xx"), std::string::npos) << r.out;
  };
  round();  // warms up threads, arenas and the cached exposition
  const long rss_after_first = ResidentKb();
  const long samples_before = SamplesWritten(std::chrono::seconds(30));
  for (int i = 0; i < 3; ++i) round();
  const long rss_after_more = ResidentKb();
  ASSERT_GT(rss_after_first, 0);
  ASSERT_GT(rss_after_more, 0);
#if defined(__SANITIZE_ADDRESS__) || defined(GPUDOCTOR_SANITIZED)
  // Under AddressSanitizer freed memory sits in its quarantine (256 MB) and
  // resident size says nothing about leaks; LeakSanitizer checks the agent
  // at exit instead, which TearDown's exit status 0 covers.
  std::cout << "[ note ] resident memory not compared under ASan: " << rss_after_first
            << " kB -> " << rss_after_more << " kB\n";
#else
  // Three more rounds of the same load may not grow the agent by more than
  // a few MB: no per-request leak (a leak of one 95 KB body per request
  // would be gigabytes).
  EXPECT_LT(rss_after_more - rss_after_first, 16 * 1024)
      << rss_after_first << " kB -> " << rss_after_more << " kB";
#endif
  EXPECT_GT(SamplesAfter(samples_before), samples_before) << Log();
}

}  // namespace
}  // namespace gpudoctor::test
