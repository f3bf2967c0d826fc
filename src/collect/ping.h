// Latency and loss to a target, the way `ping -c 20 -i 0.2` reports them:
// ICMP echo through an unprivileged ICMP datagram socket where the system
// allows it (net.ipv4.ping_group_range), through a raw socket when we have
// CAP_NET_RAW, and TCP connect time when the target names a port
// ("HOST:PORT"). IPv4 and IPv6.
//
// Bounded in time: each probe waits at most `timeout`, probes start
// `interval` apart, so a target takes at most about count * max(interval,
// timeout). Name resolution uses getaddrinfo and is not bounded by these
// (numeric addresses resolve at once). Thread-safe: no shared state.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "parse/ping_target.h"

namespace gpudoctor {

enum class PingMethod { kNone, kIcmpDatagram, kIcmpRaw, kTcpConnect };

// "none", "icmp_datagram", "icmp_raw", "tcp_connect".
const char* PingMethodName(PingMethod method);

struct PingOptions {
  unsigned count = 20;
  std::chrono::milliseconds interval{200};
  std::chrono::milliseconds timeout{1000};  // per probe
};

struct PingStats {
  unsigned sent = 0;
  unsigned received = 0;
  std::optional<double> loss_percent;  // std::nullopt when nothing was sent
  std::optional<double> min_ms, avg_ms, max_ms;
  std::optional<double> stddev_ms;  // population standard deviation, like ping's mdev
};

// Pure: statistics of `sent` probes of which `rtts_ms` came back.
PingStats SummarizeProbes(unsigned sent, const std::vector<double>& rtts_ms);

struct PingResult {
  std::string target;   // as given
  std::string address;  // the address probed, numeric
  PingMethod method = PingMethod::kNone;
  bool available = false;  // false: nothing could be probed (see why)
  std::string why;         // when !available: resolution failed, ICMP not permitted, ...
  PingStats stats;
  std::vector<std::string> notes;  // e.g. why the datagram socket was not used, refused ports
};

// Probes one target. Never throws; failures are in the result.
PingResult Ping(const PingTarget& target, const PingOptions& options = {});

// Probes every target concurrently (one thread each), results in input order.
std::vector<PingResult> PingAll(const std::vector<PingTarget>& targets,
                                const PingOptions& options = {});

}  // namespace gpudoctor
