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

#include "facts/network.h"
#include "parse/ping_target.h"

namespace gpudoctor {

struct PingOptions {
  unsigned count = 20;
  std::chrono::milliseconds interval{200};
  std::chrono::milliseconds timeout{1000};  // per probe
};

// Pure: statistics of `sent` probes of which `rtts_ms` came back.
PingStats SummarizeProbes(unsigned sent, const std::vector<double>& rtts_ms);

// Probes one target. Never throws; failures are in the result.
PingResult Ping(const PingTarget& target, const PingOptions& options = {});

// Probes every target concurrently (one thread each), results in input order.
std::vector<PingResult> PingAll(const std::vector<PingTarget>& targets,
                                const PingOptions& options = {});

}  // namespace gpudoctor
