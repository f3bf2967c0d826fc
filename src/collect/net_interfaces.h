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
#include "facts/network.h"

namespace gpudoctor {

struct NetSnapshot {
  std::chrono::steady_clock::time_point taken;
  std::vector<NetInterface> interfaces;  // sorted by name, without "lo"
  std::vector<SourceStatus> sources;     // /sys/class/net itself
};

NetSnapshot ReadNet(const CollectContext& ctx);

std::vector<NetInterfaceRates> NetRatesBetween(const NetSnapshot& a, const NetSnapshot& b);

}  // namespace gpudoctor
