#include "collect/ping.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>

#include "parse/ping_target.h"

namespace gpudoctor {
namespace ping_unit_local {

TEST(PingTarget, Forms) {
  struct Case {
    const char* text;
    const char* host;
    std::optional<std::uint16_t> port;
  } cases[] = {{"10.0.0.1", "10.0.0.1", std::nullopt},
               {"gw.example:443", "gw.example", 443},
               {"[::1]:22", "::1", 22},
               {"[::1]", "::1", std::nullopt},
               {"fe80::1", "fe80::1", std::nullopt}};
  for (const auto& c : cases) {
    auto t = ParsePingTarget(c.text);
    ASSERT_TRUE(t.ok()) << c.text;
    EXPECT_EQ(t->host, c.host) << c.text;
    EXPECT_EQ(t->port, c.port) << c.text;
  }
  for (const char* bad : {"", "host:0", "host:70000", "[::1", "[::1]x", ":80"}) {
    EXPECT_FALSE(ParsePingTarget(bad).ok()) << bad;
  }
}

TEST(PingStats, Summary) {
  auto s = SummarizeProbes(5, {1.0, 2.0, 3.0, 6.0});
  EXPECT_EQ(s.sent, 5u);
  EXPECT_EQ(s.received, 4u);
  EXPECT_DOUBLE_EQ(s.loss_percent.value_or(-1), 20.0);
  EXPECT_DOUBLE_EQ(*s.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(*s.max_ms, 6.0);
  EXPECT_DOUBLE_EQ(*s.avg_ms, 3.0);
  EXPECT_NEAR(*s.stddev_ms, std::sqrt(3.5), 1e-12);
  auto none = SummarizeProbes(3, {});
  EXPECT_DOUBLE_EQ(none.loss_percent.value_or(-1), 100.0);
  EXPECT_EQ(SummarizeProbes(0, {}).loss_percent, std::nullopt);  // nothing probed: no loss figure
  EXPECT_FALSE(none.avg_ms.has_value());
}

// A listening socket on the loopback for the TCP method; the kernel
// completes connects from its backlog without our accepting them.
class Listener {
 public:
  explicit Listener(int family) {
    fd_ = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_storage addr{};
    socklen_t len = 0;
    if (family == AF_INET) {
      auto* in = reinterpret_cast<sockaddr_in*>(&addr);
      in->sin_family = AF_INET;
      in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof *in;
    } else {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&addr);
      in6->sin6_family = AF_INET6;
      in6->sin6_addr = in6addr_loopback;
      len = sizeof *in6;
    }
    ok_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0 &&
          ::listen(fd_, 64) == 0 &&
          ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    port_ = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&addr)->sin_port
                                    : reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  }
  ~Listener() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return ok_; }
  std::uint16_t port() const { return port_; }
  void Close() {
    ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
  std::uint16_t port_ = 0;
};

PingOptions Fast() {
  PingOptions o;
  o.count = 5;
  o.interval = std::chrono::milliseconds(10);
  o.timeout = std::chrono::milliseconds(500);
  return o;
}

TEST(Ping, TcpConnectToLoopbackListener) {
  Listener listener(AF_INET);
  ASSERT_TRUE(listener.ok());
  auto target = ParsePingTarget("127.0.0.1:" + std::to_string(listener.port()));
  ASSERT_TRUE(target.ok());
  const auto start = std::chrono::steady_clock::now();
  auto r = Ping(*target, Fast());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_TRUE(r.available) << r.why;
  EXPECT_EQ(r.method, PingMethod::kTcpConnect);
  EXPECT_EQ(r.address, "127.0.0.1");
  EXPECT_EQ(r.stats.sent, 5u);
  EXPECT_EQ(r.stats.received, 5u);
  EXPECT_DOUBLE_EQ(r.stats.loss_percent.value_or(-1), 0.0);
  ASSERT_TRUE(r.stats.avg_ms.has_value());
  EXPECT_GE(*r.stats.min_ms, 0.0);
  EXPECT_LE(*r.stats.min_ms, *r.stats.avg_ms);
  EXPECT_LE(*r.stats.avg_ms, *r.stats.max_ms);
  EXPECT_LT(*r.stats.max_ms, 500.0);
  EXPECT_TRUE(r.notes.empty());
}

TEST(Ping, TcpConnectOverIpv6Loopback) {
  Listener listener(AF_INET6);
  if (!listener.ok()) GTEST_SKIP() << "no IPv6 loopback in this sandbox";
  auto target = ParsePingTarget("[::1]:" + std::to_string(listener.port()));
  ASSERT_TRUE(target.ok());
  auto r = Ping(*target, Fast());
  EXPECT_TRUE(r.available) << r.why;
  EXPECT_EQ(r.address, "::1");
  EXPECT_EQ(r.stats.received, 5u);
}

TEST(Ping, RefusedPortStillMeasuresAndSaysSo) {
  Listener listener(AF_INET);
  ASSERT_TRUE(listener.ok());
  const auto port = listener.port();
  listener.Close();  // nothing listens there now: connects are refused
  auto r = Ping(*ParsePingTarget("127.0.0.1:" + std::to_string(port)), Fast());
  EXPECT_TRUE(r.available);
  EXPECT_EQ(r.stats.received, 5u);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("refused"), std::string::npos);
}

TEST(Ping, IcmpToLoopbackOrTheReasonWhyNot) {
  auto r = Ping(*ParsePingTarget("127.0.0.1"), Fast());
  if (r.available) {
    // Datagram socket (ping_group_range) or raw socket (root).
    EXPECT_TRUE(r.method == PingMethod::kIcmpDatagram || r.method == PingMethod::kIcmpRaw)
        << PingMethodName(r.method);
    EXPECT_EQ(r.stats.sent, 5u);
    EXPECT_EQ(r.stats.received, 5u);
    if (r.method == PingMethod::kIcmpRaw) {
      ASSERT_FALSE(r.notes.empty());  // why the datagram socket was not used
      EXPECT_NE(r.notes[0].find("ping_group_range"), std::string::npos);
    }
  } else {
    EXPECT_EQ(r.method, PingMethod::kNone);
    EXPECT_EQ(r.stats.sent, 0u);
    EXPECT_EQ(r.stats.loss_percent, std::nullopt);
    EXPECT_NE(r.why.find("CAP_NET_RAW"), std::string::npos) << r.why;
    EXPECT_NE(r.why.find("HOST:PORT"), std::string::npos) << r.why;
  }
}

TEST(Ping, IcmpToIpv6LoopbackOrTheReasonWhyNot) {
  auto r = Ping(*ParsePingTarget("::1"), Fast());
  if (r.available) {
    EXPECT_EQ(r.address, "::1");
    EXPECT_EQ(r.stats.sent, 5u);
    EXPECT_EQ(r.stats.received, 5u);
  } else {
    EXPECT_FALSE(r.why.empty());
  }
}

TEST(Ping, UnresolvableNameSaysWhy) {
  // ".invalid" never resolves (RFC 6761), without needing the network.
  auto r = Ping(*ParsePingTarget("no-such-host.invalid"), Fast());
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.why.find("cannot resolve"), std::string::npos);
}

TEST(Ping, AllTargetsConcurrentlyInOrder) {
  Listener listener(AF_INET);
  ASSERT_TRUE(listener.ok());
  std::vector<PingTarget> targets = {
      *ParsePingTarget("127.0.0.1:" + std::to_string(listener.port())),
      *ParsePingTarget("no-such-host.invalid")};
  auto results = PingAll(targets, Fast());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].available);
  EXPECT_FALSE(results[1].available);
}

}  // namespace ping_unit_local
}  // namespace gpudoctor
