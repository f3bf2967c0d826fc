// The TOML configuration file (/etc/gpudoctor/config.toml or --config FILE):
// threshold overrides, power-supply facts, the expected GPU count, the
// "sustained" share of a window, the hosts to ping, the agent's /metrics
// names and per-code severity overrides ([severity]). Every key is optional;
// a missing file means the defaults. deploy/config.example.toml lists them.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/metric_names.h"
#include "core/result.h"
#include "core/thresholds.h"

namespace gpudoctor {

inline constexpr std::string_view kDefaultConfigPath = "/etc/gpudoctor/config.toml";

// [severity]: the level a user gives one Xid or SXid code, replacing the one
// gpudoctor's policy gives it (`xid.94 = "warning"`, `sxid.12028 =
// "critical"`). Values are Level::kInfo, kWarning or kCritical.
struct SeverityOverrides {
  std::map<int, Level> xid;
  std::map<int, Level> sxid;
  bool empty() const { return xid.empty() && sxid.empty(); }
};

// The InfiniBand / RoCE ports judged by network.rdma and network.rdma_errors.
struct IbConfig {
  std::optional<unsigned> ports;    // [network] ib_ports: compute ports expected; unset:
                                    // the platform default (knowledge/ib_counters.h) or none
  std::optional<double> rate_gbps;  // [network] ib_rate_gbps: their rate; unset: as above,
                                    // else the fastest peer of the same adapter model
  // [network] ib_symbol_errors_per_hour: symbol errors above this rate are
  // critical (the IBTA 10^-12 bit-error-rate bound, kIbSymbolErrorsPerHourBound).
  double symbol_errors_per_hour = 120;
  // [network] ib_error_count: a warning-class counter (symbol_error,
  // link_error_recovery, port_rcv_errors, port_xmit_discards,
  // roce_slow_restart, local_ack_timeout_err) that rises by at least this
  // much in the window is a warning (infiniband-diags' ibcheckerrs default
  // threshold for SymbolErrorCounter and PortRcvErrors is 10).
  double error_count = 10;
  // [network] ib_drop_minutes: a port down this long after being ACTIVE has
  // dropped (critical); shorter outages that came back are flaps.
  double drop_minutes = 4;
};

// [escalation]: when a fault that a reboot or a reset should fix comes back
// on the same physical GPU after `after_reboots` reboots, the agent latches
// it for hardware inspection (agent/escalation.h). 0 never escalates.
struct EscalationConfig {
  int after_reboots = 2;  // [escalation] after_reboots
  // [escalation] xid.N = reboots: one Xid's own threshold (0: never). Xid
  // 94, a contained ECC error the driver handled, never escalates.
  std::map<int, int> xid_after_reboots{{94, 0}};
  // [escalation] window: occurrences older than this do not count.
  std::chrono::milliseconds window{std::chrono::hours(24 * 7)};
  // [escalation] dedup: repeats closer than this count once, even across a
  // reboot (a crash loop, or a log replayed after the boot).
  std::chrono::milliseconds dedup{std::chrono::minutes(3)};
  // [escalation] max_recoveries / recovery_period: `fix --reset-gpu` stops
  // resetting (and recommends support) once the node had this many GPU
  // resets and reboots within the period. 0: no limit.
  int max_recoveries = 3;
  std::chrono::milliseconds recovery_period{std::chrono::hours(24)};
};

struct Config {
  Thresholds thresholds;                            // [thresholds]
  std::optional<double> psu_capacity_w;             // [power] psu_capacity_w; unset: unknown
  std::optional<unsigned> expected_gpus;            // [gpus] expected_count; unset: unknown
  std::optional<double> psu_headroom_ratio = 0.20;  // [power] headroom_ratio
  double sustained_fraction = 0.8;                  // [window]: share of the window above a
                                                    // threshold that makes it "sustained"
  std::vector<std::string> ping_targets;            // [network] ping: "host" or "host:port"
  std::vector<std::string> dataset_mounts;          // [storage] dataset_mounts: absolute paths
  IbConfig ib;                                      // [network] ib_*
  MetricNames metric_names = MetricNames::kGpudoctor;  // [metrics] names: the agent's /metrics
  unsigned metrics_top_processes = kDefaultTopProcesses;  // [metrics] top_processes per GPU
  SeverityOverrides severity;                             // [severity] xid.N / sxid.N
  EscalationConfig escalation;                            // [escalation]
  std::string source = "defaults";                  // the file read, or "defaults"
};

// Parses and validates `toml_text`. Pure. Errors are one line,
// "<source_name>:<line>: <section.key>: <why>" (kInvalid), or
// "<source_name>:<line>:<column>: TOML syntax: <why>" (kCorrupt).
// Unknown sections and keys are errors, so that a typo is not silently ignored.
Result<Config> ParseConfig(std::string_view toml_text, std::string_view source_name);

// An explicit path (--config FILE) must exist and be a readable regular file.
// Without one, `default_path` is read when it exists; when it does not, the
// defaults are returned with source "defaults".
Result<Config> LoadConfig(const std::optional<std::string>& explicit_path,
                          std::string_view default_path = kDefaultConfigPath);

}  // namespace gpudoctor
