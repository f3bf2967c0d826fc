// The network as gpudoctor saw it over a sampling window: interfaces with
// their byte, error and drop rates, RDMA devices and ports with their state
// and error counters, and latency and loss to the ping targets (NetFacts).
// collect/net_facts.h, net_interfaces.h, rdma.h and ping.h fill them; rules,
// renderers and the store read them.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/source_status.h"

namespace gpudoctor {

// Interfaces (/sys/class/net).

// An interface's counters, cumulative since it came up.
struct NetCounters {
  std::optional<std::uint64_t> rx_bytes, tx_bytes;
  std::optional<std::uint64_t> rx_errors, tx_errors;
  std::optional<std::uint64_t> rx_dropped, tx_dropped;
};

// One interface (not loopback) at one reading.
struct NetInterface {
  std::string name;
  std::string operstate;                   // "up", "down", "unknown", ...
  std::optional<std::int64_t> speed_mbps;  // unknown for virtual devices and links that are down
  std::optional<int> mtu;
  bool physical = false;  // has a `device` link (a real NIC, not a bridge/veth/tunnel)
  NetCounters counters;   // cumulative since the interface came up
  std::vector<SourceStatus> sources;
};

// An interface with its rates between two readings.
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

// Ping targets and results.

// A `--ping` target: "HOST", "HOST:PORT", "[V6]:PORT" (parse/ping_target.h).
struct PingTarget {
  std::string host;                   // without brackets
  std::optional<std::uint16_t> port;  // set: TCP connect to this port
  std::string text;                   // as the user wrote it, for reports
};

// How a target was probed: ICMP echo (datagram or raw socket) or TCP connect.
enum class PingMethod { kNone, kIcmpDatagram, kIcmpRaw, kTcpConnect };

// "none", "icmp_datagram", "icmp_raw", "tcp_connect".
const char* PingMethodName(PingMethod method);

// Latency and loss over the probes of one target, as ping reports them.
struct PingStats {
  unsigned sent = 0;
  unsigned received = 0;
  std::optional<double> loss_percent;  // std::nullopt when nothing was sent
  std::optional<double> min_ms, avg_ms, max_ms;
  std::optional<double> stddev_ms;  // population standard deviation, like ping's mdev
};

struct PingResult {
  std::string target;   // as given
  std::string address;  // the address probed, numeric
  PingMethod method = PingMethod::kNone;
  bool available = false;  // false: nothing could be probed (see why)
  std::string why;         // when !available: resolution failed, ICMP not permitted, ...
  PingStats stats;
  std::vector<std::string> notes;  // e.g. why the datagram socket was not used, refused ports
};

// RDMA (/sys/class/infiniband).

// An InfiniBand port's state or phys_state: "4: ACTIVE" -> {4, "ACTIVE"},
// "5: LinkUp" -> {5, "LinkUp"}.
struct IbPortState {
  int code = 0;
  std::string name;
};

// One counter file: counters/<name> (the IBTA PortCounters) or
// hw_counters/<name> (the driver's own, 64-bit).
struct RdmaCounter {
  std::string name;  // "symbol_error", "rnr_nak_retry_err"
  bool hw = false;   // from hw_counters/
  std::uint64_t value = 0;
};

// One port of an RDMA device: state, rate, link layer and counters.
struct RdmaPort {
  unsigned port = 0;
  std::optional<IbPortState> state;       // "4: ACTIVE"
  std::optional<IbPortState> phys_state;  // "5: LinkUp"
  std::optional<double> rate_gbps;
  std::string rate_text;   // "200 Gb/sec (4X HDR)"
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  bool roce = false;       // link_layer == "Ethernet"
  bool active = false;     // state code 4 (ACTIVE)
  std::vector<RdmaCounter> counters;  // by name, counters/ before hw_counters/
  std::vector<SourceStatus> sources;

  // The counter's value, or nullopt when the port has no such file.
  std::optional<std::uint64_t> Counter(std::string_view name) const;
};

// One RDMA device (HCA) with its ports and place on the PCI tree.
struct RdmaDevice {
  std::string name;        // "mlx5_0"
  std::string fw_version;  // fw_ver, when readable
  std::vector<RdmaPort> ports;
  std::string hca_type = {};    // "MT4129" (ConnectX-7), when readable
  std::string pci_bus_id = {};  // "0000:1a:00.0" from the device link; "" when unknown
  std::optional<int> numa_node = {};
  std::vector<std::string> upstream_ports = {};  // PCI bridges above it, nearest first
  // The GPUs (bus ids) that share the nearest PCI bridge with it, else the
  // GPUs of its NUMA node: the ones whose NCCL traffic this NIC carries.
  std::vector<std::string> nearest_gpus = {};
};

// Every RDMA device of one reading.
struct RdmaFacts {
  std::vector<RdmaDevice> devices;
  std::vector<SourceStatus> sources;
  std::optional<std::chrono::system_clock::time_point> read_at;  // ctx.now when read
};

// "mlx5_0 port 1" -- how findings and metrics name a port.
std::string RdmaPortLabel(const RdmaDevice& device, const RdmaPort& port);

// Everything gpudoctor knows about the network.
struct NetFacts {
  std::vector<NetInterfaceRates> interfaces;
  RdmaFacts rdma;                      // read at the end of the sampling window
  std::optional<RdmaFacts> rdma_before;  // read at its start, for counter rates
  std::vector<PingResult> pings;      // in the order of the targets
  std::vector<SourceStatus> sources;  // /sys/class/net
};

}  // namespace gpudoctor
