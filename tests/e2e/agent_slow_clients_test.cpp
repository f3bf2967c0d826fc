// The agent's HTTP endpoint under 1000 connections that trickle a request
// head one byte at a time (slowloris), from 20 loopback addresses
// (127.0.0.2-21, 50 each: below the per-client cap, so all are held), and
// 200 more from one address (above the cap). While they last, probes of
// /healthz and /metrics from 127.0.0.1 must all be answered; a trickling
// connection is closed once its head is overdue, and one address gets no
// more connections than the cap. Prints the probe latencies, the agent's
// threads and resident memory (RELIABILITY.md quotes them).
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace agent_slow_clients_test {

// A non-blocking TCP connection to 127.0.0.1:port from `source`; -1 when
// it could not be made.
int ConnectFrom(const std::string& source, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
    close(fd);
    return -1;
  }
  return fd;
}

// True when the server has closed `fd` (end of stream or reset).
bool ClosedByServer(int fd) {
  char byte = 0;
  const ssize_t n = recv(fd, &byte, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

// Connections that send a request head one byte per round, reconnecting
// whenever the server closes one, until stopped.
class Tricklers {
 public:
  Tricklers(int port, int addresses, int per_address) : port_(port) {
    for (int a = 0; a < addresses; ++a) {
      for (int i = 0; i < per_address; ++i) {
        conns_.push_back({"127.0.0." + std::to_string(2 + a), -1, 0});
      }
    }
    thread_ = std::thread([this] { Run(); });
  }
  ~Tricklers() {
    stop_ = true;
    thread_.join();
    for (auto& c : conns_) {
      if (c.fd >= 0) close(c.fd);
    }
  }
  long reconnects() const { return reconnects_.load(); }
  long open() const { return open_.load(); }

 private:
  struct Conn {
    std::string source;
    int fd;
    std::size_t sent;
  };
  void Run() {
    static const std::string kHead =
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + std::string(4000, 'a');
    while (!stop_) {
      long open = 0;
      for (auto& c : conns_) {
        if (c.fd >= 0 && ClosedByServer(c.fd)) {
          close(c.fd);
          c.fd = -1;
          ++reconnects_;
        }
        if (c.fd < 0) {
          c.fd = ConnectFrom(c.source, port_);
          c.sent = 0;
          continue;
        }
        if (send(c.fd, &kHead[c.sent % kHead.size()], 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
          ++c.sent;
        ++open;
      }
      open_ = open;
      for (int i = 0; i < 10 && !stop_; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  const int port_;
  std::vector<Conn> conns_;
  std::atomic<bool> stop_{false};
  std::atomic<long> reconnects_{0};
  std::atomic<long> open_{0};
  std::thread thread_;
};

long ProcStatus(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  }
  return -1;
}

TEST(AgentSlowClients, ThousandTricklingConnectionsDoNotStarveHealthzOrMetrics) {
  // 1200 sockets here, as many in the agent: raise the soft limit.
  rlimit r{};
  getrlimit(RLIMIT_NOFILE, &r);
  r.rlim_cur = std::min<rlim_t>(r.rlim_max, 8192);
  setrlimit(RLIMIT_NOFILE, &r);
  getrlimit(RLIMIT_NOFILE, &r);
  if (r.rlim_cur < 2600) GTEST_SKIP() << "RLIMIT_NOFILE hard limit " << r.rlim_max << " < 2600";

  TempDir data;
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  BackgroundProcess agent(GpudoctorArgv({"agent", "--data-dir", data.path().string(), "--interval",
                                         "500ms", "--no-kernel-log", "--run-for", "300s",
                                         "--listen", "127.0.0.1:" + std::to_string(port)}),
                          FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/eight_gpus.json"),
                          (data.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  auto probe = [&](const char* path, double* seconds) {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(10);
    c.set_read_timeout(20);
    const auto start = std::chrono::steady_clock::now();
    auto res = c.Get(path);
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res ? res->status : 0;
  };
  double unused = 0;
  for (int i = 0; i < 300 && probe("/metrics", &unused) != 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(probe("/metrics", &unused), 200);
  const long threads_idle = ProcStatus(agent.pid(), "Threads");
  const long rss_idle = ProcStatus(agent.pid(), "VmRSS");

  std::vector<double> latencies;
  long cap_open = -1;
  long open_under_attack = 0;
  long threads_attack = 0;
  long rss_attack = 0;
  long reconnects = 0;
  {
    Tricklers attack(port, 20, 50);
    // 200 more from one address: the agent keeps at most 64 of them.
    std::vector<int> crowd;
    for (int i = 0; i < 200; ++i) crowd.push_back(ConnectFrom("127.0.0.99", port));
    std::this_thread::sleep_for(std::chrono::seconds(3));
    cap_open = std::count_if(crowd.begin(), crowd.end(),
                             [](int fd) { return fd >= 0 && !ClosedByServer(fd); });
    for (int fd : crowd) {
      if (fd >= 0) close(fd);
    }
    // 25 s of probes: longer than the 10 s head deadline, so they also
    // run while the agent closes overdue connections and they come back.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(25);
    while (std::chrono::steady_clock::now() < until) {
      for (const char* path : {"/healthz", "/metrics"}) {
        double seconds = 0;
        EXPECT_EQ(probe(path, &seconds), 200) << path << " unanswered under 1000 trickling "
                                              << "connections";
        latencies.push_back(seconds);
      }
      open_under_attack = std::max(open_under_attack, attack.open());
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    threads_attack = ProcStatus(agent.pid(), "Threads");
    rss_attack = ProcStatus(agent.pid(), "VmRSS");
    reconnects = attack.reconnects();
  }
  EXPECT_GE(open_under_attack, 900);  // the agent held them: they were an attack
  EXPECT_LE(cap_open, 64);            // --max-connections-per-client
  EXPECT_GT(cap_open, 0);
  // Overdue heads were closed (each of the 1000 at least once in 25 s).
  EXPECT_GE(reconnects, 1000);
  ASSERT_FALSE(latencies.empty());
  std::sort(latencies.begin(), latencies.end());
  std::cout << "[ figures ] probes " << latencies.size() << ", latency median "
            << latencies[latencies.size() / 2] * 1000 << " ms, max " << latencies.back() * 1000
            << " ms; trickling connections held at once " << open_under_attack
            << ", closed as overdue " << reconnects << "; one address kept " << cap_open
            << " of 200; agent threads " << threads_idle << " idle, " << threads_attack
            << " under attack; resident " << rss_idle << " kB idle, " << rss_attack
            << " kB under attack\n";
  agent.Signal(SIGTERM);
  const int st = agent.Wait(std::chrono::seconds(30));
  EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
}

}  // namespace agent_slow_clients_test
}  // namespace gpudoctor::test
