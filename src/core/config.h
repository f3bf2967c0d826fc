// The TOML configuration file (/etc/gpudoctor/config.toml or --config FILE):
// threshold overrides, power-supply facts, the expected GPU count, the
// "sustained" share of a window, the hosts to ping, the agent's /metrics
// names and per-code severity overrides ([severity]). Every key is optional;
// a missing file means the defaults. deploy/config.example.toml lists them.
#pragma once

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

struct Config {
  Thresholds thresholds;                            // [thresholds]
  std::optional<double> psu_capacity_w;             // [power] psu_capacity_w; unset: unknown
  std::optional<unsigned> expected_gpus;            // [gpus] expected_count; unset: unknown
  std::optional<double> psu_headroom_ratio = 0.20;  // [power] headroom_ratio
  double sustained_fraction = 0.8;                  // [window]: share of the window above a
                                                    // threshold that makes it "sustained"
  std::vector<std::string> ping_targets;            // [network] ping: "host" or "host:port"
  MetricNames metric_names = MetricNames::kGpudoctor;  // [metrics] names: the agent's /metrics
  unsigned metrics_top_processes = kDefaultTopProcesses;  // [metrics] top_processes per GPU
  SeverityOverrides severity;                             // [severity] xid.N / sxid.N
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
