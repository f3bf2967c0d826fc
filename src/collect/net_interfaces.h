// Network interfaces from /sys/class/net: state, speed, MTU, physical or
// virtual, and byte / error / drop counters turned into rates between two
// readings. The loopback interface is skipped.
//
// Use: a = ReadNet(ctx); sleep; b = ReadNet(ctx); NetRatesBetween(a, b).
// Never fails; unreadable files are listed per interface.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"

namespace gpudoctor {

struct NetCounters {
  std::optional<std::uint64_t> rx_bytes, tx_bytes;
  std::optional<std::uint64_t> rx_errors, tx_errors;
  std::optional<std::uint64_t> rx_dropped, tx_dropped;
};

struct NetInterface {
  std::string name;
  std::string operstate;                   // "up", "down", "unknown", ...
  std::optional<std::int64_t> speed_mbps;  // unknown for virtual devices and links that are down
  std::optional<int> mtu;
  bool physical = false;  // has a `device` link (a real NIC, not a bridge/veth/tunnel)
  NetCounters counters;   // cumulative since the interface came up
  std::vector<SourceStatus> sources;
};

struct NetSnapshot {
  std::chrono::steady_clock::time_point taken;
  std::vector<NetInterface> interfaces;  // sorted by name, without "lo"
  std::vector<SourceStatus> sources;     // /sys/class/net itself
};

NetSnapshot ReadNet(const CollectContext& ctx);

struct NetInterfaceRates {
  NetInterface interface;  // from the later reading
  double window_s = 0;
  // Rates over the window; std::nullopt when either reading lacks the
  // counter, the interface is new, or no time passed. A counter that went
  // backwards (interface reset) gives 0.
  std::optional<double> rx_bytes_per_s, tx_bytes_per_s;
  std::optional<double> rx_mbps, tx_mbps;  // megabits per second
  std::optional<double> rx_errors_per_s, tx_errors_per_s;
  std::optional<double> rx_dropped_per_s, tx_dropped_per_s;
};

std::vector<NetInterfaceRates> NetRatesBetween(const NetSnapshot& a, const NetSnapshot& b);

}  // namespace gpudoctor
