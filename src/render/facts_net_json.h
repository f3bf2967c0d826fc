// JSON for the network part of `gpudoctor facts --json`: interfaces with
// rates, RDMA ports, ping results. Unknown values are null.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "facts/network.h"

namespace gpudoctor {

// {interfaces: [{name, operstate, physical, speed_mbps, mtu, window_s,
//   rx/tx_bytes_per_s, rx/tx_mbps, rx/tx_errors_per_s, rx/tx_dropped_per_s,
//   rx/tx_bytes_total, rx/tx_errors_total, rx/tx_dropped_total, sources}],
//  rdma: {devices: [{name, fw_version, ports: [{port, state, state_code,
//   phys_state, phys_state_code, active, rate_gbps, rate_text, link_layer,
//   roce, sources}]}], sources},
//  pings: [ToJson(PingResult)], sources}
nlohmann::ordered_json ToJson(const NetFacts& facts);

// {target, address, method ("icmp_datagram"/"icmp_raw"/"tcp_connect"/
//  "none"), available, why?, sent, received, loss_percent (null when nothing
//  was sent), min_ms, avg_ms,
//  max_ms, stddev_ms, notes: [..]}
nlohmann::ordered_json ToJson(const PingResult& ping);

}  // namespace gpudoctor
