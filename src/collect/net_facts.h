// Everything gpudoctor knows about the network, in one call: interfaces with
// rates over `sample_window`, RDMA ports, and latency / loss to the ping
// targets (probed concurrently with the sampling window, so the call takes
// about max(sample_window, the slowest ping)). Render with
// ToJson(const NetFacts&) from render/facts_net_json.h.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "collect/collect_context.h"
#include "collect/net_interfaces.h"
#include "collect/ping.h"
#include "collect/rdma.h"
#include "facts/network.h"

namespace gpudoctor {

// Pings go to the live network whatever ctx.root is (a fake root has no
// network of its own); pass no targets to skip them.
NetFacts CollectNetwork(const CollectContext& ctx, std::chrono::milliseconds sample_window,
                        const std::vector<PingTarget>& ping_targets = {},
                        const PingOptions& ping_options = {});

}  // namespace gpudoctor
