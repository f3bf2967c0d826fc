// gpudoctor agent: records every GPU and the host continuously into the
// store in the data directory (see src/agent/agent.h).
#include <sys/utsname.h>

#include <csignal>
#include <cstdlib>
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "agent/agent.h"
#include "agent/agent_log.h"
#include "cli/commands.h"
#include "cli/nvml_options.h"
#include "core/data_dir.h"
#include "core/duration.h"
#include "parse/ping_target.h"

namespace gpudoctor {
namespace {

struct AgentCliOptions {
  std::string interval = "1s";
  std::string data_dir;
  bool allow_shared_data_dir = false;
  std::int64_t max_store_mb = 1024;
  std::string raw_retention = "14d";
  std::string rollup_retention = "180d";
  std::string window = "60s";
  std::string evaluate_every = "10s";
  std::string facts_every = "5m";
  std::string config;
  std::string root = "/";
  unsigned expected_gpus = 0;
  std::vector<std::string> pings;
  std::string log_level = "info";
  std::string run_for;
  bool no_kernel_log = false;
  bool no_nvml_events = false;
  std::string listen = "127.0.0.1:9835";
  bool no_listen = false;
  std::string health_listen;
  std::string web_config;
  unsigned max_connections_per_client = 64;
  std::string metrics_names;                   // empty: the config's [metrics] names
  std::optional<unsigned> metrics_top_processes;  // unset: the config's [metrics] top_processes
};

// The node's name for dcgm-exporter's Hostname label, as dcgm-exporter finds
// it: $NODE_NAME (a DaemonSet sets it from spec.nodeName), else the host name.
std::string MetricsHostname() {
  if (const char* node = std::getenv("NODE_NAME"); node != nullptr && *node != '\0') return node;
  utsname u{};
  return uname(&u) == 0 ? std::string(u.nodename) : std::string();
}

AgentSignals* g_signals = nullptr;

void OnSignal(int sig) {
  if (g_signals == nullptr) return;
  if (sig == SIGHUP) {
    g_signals->RequestReload();
  } else {
    g_signals->RequestStop();
  }
}

Result<std::chrono::milliseconds> Duration(const char* name, const std::string& text) {
  auto d = ParseDuration(text);
  if (!d) return Error{ErrorCode::kInvalid, std::string(name) + ": " + d.error().message};
  return *d;
}

int Days(std::chrono::milliseconds d) {
  return static_cast<int>(std::max<std::int64_t>(1, d.count() / (24LL * 3600 * 1000)));
}

Result<AgentOptions> MakeAgentOptions(const AgentCliOptions& c, const GlobalOptions& global) {
  AgentOptions o;
  auto nvml = MakeNvmlOptions(global);
  if (!nvml) return nvml.error();
  o.nvml = *nvml;
  o.nvml.nvlink_peers_refresh = kAgentNvlinkPeersRefresh;
  struct {
    const char* name;
    const std::string& text;
    std::chrono::milliseconds* out;
  } durations[] = {{"--interval", c.interval, &o.interval},
                   {"--window", c.window, &o.rules_window},
                   {"--evaluate-every", c.evaluate_every, &o.evaluate_every},
                   {"--facts-every", c.facts_every, &o.facts_every}};
  for (auto& d : durations) {
    auto v = Duration(d.name, d.text);
    if (!v) return v.error();
    *d.out = *v;
  }
  if (o.interval < std::chrono::milliseconds(100)) {
    return Error{ErrorCode::kInvalid, "--interval " + c.interval + ": at least 100ms"};
  }
  // A window shorter than a sample's interval may hold no sample at all;
  // host facts (packages, services, the fabric) read every few ms would
  // be most of the agent's CPU.
  if (o.rules_window < o.interval) {
    return Error{ErrorCode::kInvalid,
                 "--window " + c.window + ": at least --interval (" + c.interval + ")"};
  }
  if (o.evaluate_every < o.interval) {
    return Error{ErrorCode::kInvalid, "--evaluate-every " + c.evaluate_every +
                                          ": at least --interval (" + c.interval + ")"};
  }
  if (o.facts_every < std::chrono::seconds(10)) {
    return Error{ErrorCode::kInvalid, "--facts-every " + c.facts_every + ": at least 10s"};
  }
  auto raw = Duration("--raw-retention", c.raw_retention);
  if (!raw) return raw.error();
  auto rollup = Duration("--rollup-retention", c.rollup_retention);
  if (!rollup) return rollup.error();
  o.store.raw_retention_days = Days(*raw);
  o.store.rollup_retention_days = Days(*rollup);
  if (o.store.rollup_retention_days < o.store.raw_retention_days) {
    return Error{ErrorCode::kInvalid, "--rollup-retention " + c.rollup_retention +
                                          ": shorter than --raw-retention " + c.raw_retention};
  }
  if (c.max_store_mb < 16) {
    return Error{ErrorCode::kInvalid,
                 "--max-store-mb " + std::to_string(c.max_store_mb) + ": at least 16"};
  }
  o.store.max_store_bytes = c.max_store_mb * 1024 * 1024;
  if (!c.run_for.empty()) {
    auto r = Duration("--run-for", c.run_for);
    if (!r) return r.error();
    o.run_for = *r;
  }
  auto dir = ResolveDataDir(c.data_dir.empty() ? std::nullopt : std::optional(c.data_dir));
  if (!dir) return dir.error();
  if (auto made = EnsureDataDir(*dir, c.allow_shared_data_dir); !made) return made.error();
  o.store.data_dir = *dir;
  if (!c.config.empty()) o.config_path = c.config;
  auto config = LoadConfig(o.config_path);
  if (!config) return config.error();
  o.config = *config;
  if (c.expected_gpus > 0) o.config.expected_gpus = c.expected_gpus;
  std::error_code ec;
  if (!std::filesystem::is_directory(c.root, ec)) {
    return Error{ErrorCode::kInvalid, "--root " + c.root + ": not a directory"};
  }
  o.evidence.ctx.root = c.root;
  for (const auto& text : c.pings.empty() ? o.config.ping_targets : c.pings) {
    auto target = ParsePingTarget(text);
    if (!target) {
      return Error{ErrorCode::kInvalid, "ping target " + text + ": " + target.error().message};
    }
    o.evidence.ping_targets.push_back(*target);
  }
  o.metrics.names = o.config.metric_names;
  if (!c.metrics_names.empty()) {
    auto names = ParseMetricNames(c.metrics_names);
    if (!names) {
      return Error{ErrorCode::kInvalid,
                   "--metrics-names " + c.metrics_names + ": not gpudoctor, dcgm or both"};
    }
    o.metrics.names = *names;
  }
  o.metrics.top_processes = c.metrics_top_processes.value_or(o.config.metrics_top_processes);
  if (o.metrics.top_processes > kMaxTopProcesses) {
    return Error{ErrorCode::kInvalid, "--metrics-top-processes " +
                                          std::to_string(o.metrics.top_processes) + ": at most " +
                                          std::to_string(kMaxTopProcesses)};
  }
  o.metrics.hostname = MetricsHostname();
  o.follow_kernel_log = !c.no_kernel_log;
  o.watch_nvml_events = !c.no_nvml_events;
  if (!c.no_listen && !c.listen.empty()) {
    auto listen = ParseListenAddress(c.listen);
    if (!listen) return listen.error();
    o.listen = *listen;
    if (!c.health_listen.empty()) {
      auto health = ParseListenAddress(c.health_listen);
      if (!health) return Error{health.error().code, "--health-listen: " + health.error().message};
      o.health_listen = *health;
    }
  }
  if (!c.web_config.empty()) {
    auto web = LoadWebConfig(c.web_config);
    if (!web) return web.error();
    o.web = std::move(*web);
    o.web_config_path = c.web_config;
  }
  if (c.max_connections_per_client == 0) {
    return Error{ErrorCode::kInvalid, "--max-connections-per-client 0: at least 1"};
  }
  o.per_client_connections = c.max_connections_per_client;
  return o;
}

int RunAgentCommand(const AgentCliOptions& c, const GlobalOptions& global) {
  auto level = ParseLogLevel(c.log_level);
  auto options = level ? MakeAgentOptions(c, global) : Result<AgentOptions>(level.error());
  if (!options) {
    std::cerr << "gpudoctor agent: " << options.error().message << "\n";
    return kExitCannotRun;
  }
  SetLogLevel(*level);
  // The agent runs for months beside the workload: two malloc arenas for
  // its dozen threads (glibc gives each thread that allocates one of its
  // own), and a fixed threshold above which blocks are mapped and given
  // back when freed (glibc raises it after the first such free, so a
  // periodic large read then stayed resident in an arena).
  mallopt(M_ARENA_MAX, 2);
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  static AgentSignals signals;
  g_signals = &signals;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return RunAgent(std::move(*options), signals);
}

}  // namespace

void RegisterAgent(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto c = std::make_shared<AgentCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "agent", "Record every GPU, the host and kernel/NVML events continuously into a local "
               "store, and track when each finding starts and ends (for `gpudoctor report`)");
  cmd->add_option("--interval", c->interval, "Time between two GPU samples")->capture_default_str();
  cmd->add_option("--data-dir", c->data_dir,
                  "Where the store lives (default /var/lib/gpudoctor for root, "
                  "$XDG_STATE_HOME/gpudoctor otherwise)");
  cmd->add_flag("--allow-shared-data-dir", c->allow_shared_data_dir,
                  "Accept a data directory that another user owns or can write to (or that sits in "
                  "such a directory); by default refused, since planted links there could turn "
                  "root's writes against other files");
  cmd->add_option("--max-store-mb", c->max_store_mb, "Bound on the store's size on disk")
      ->capture_default_str();
  cmd->add_option("--raw-retention", c->raw_retention, "Keep raw samples this long")
      ->capture_default_str();
  cmd->add_option("--rollup-retention", c->rollup_retention,
                  "Keep per-minute roll-ups, events and findings this long")
      ->capture_default_str();
  cmd->add_option("--window", c->window, "The rules look at this much recent history")
      ->capture_default_str();
  cmd->add_option("--evaluate-every", c->evaluate_every, "Run the rules this often")
      ->capture_default_str();
  cmd->add_option("--facts-every", c->facts_every,
                  "Re-read host, PCI, versions and network facts this often")
      ->capture_default_str();
  cmd->add_option("--config", c->config,
                  "Configuration file (default /etc/gpudoctor/config.toml when present); "
                  "re-read on SIGHUP");
  cmd->add_option("--root", c->root, "Read /proc, /sys, /dev/kmsg below this directory")
      ->capture_default_str();
  cmd->add_option("--expected-gpus", c->expected_gpus, "GPUs this machine should have (1-1024)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--ping", c->pings, "Measure latency and loss to HOST or HOST:PORT");
  cmd->add_option("--log-level", c->log_level, "debug, info, warning or error")
      ->capture_default_str();
  cmd->add_option("--run-for", c->run_for, "Stop after this long (default: until SIGTERM)");
  cmd->add_flag("--no-kernel-log", c->no_kernel_log, "Do not follow /dev/kmsg or the journal");
  cmd->add_flag("--no-nvml-events", c->no_nvml_events, "Do not watch NVML's Xid events");
  cmd->add_option("--listen", c->listen,
                  "Serve /metrics, /healthz and /api/v1/{status,report} on ADDR:PORT "
                  "('' for none)")
      ->capture_default_str();
  cmd->add_flag("--no-listen", c->no_listen, "Serve no HTTP endpoint");
  cmd->add_option("--health-listen", c->health_listen,
                  "Also serve /healthz alone on ADDR:PORT, plain HTTP without the web config's "
                  "TLS or users (for Kubernetes' probes)");
  cmd->add_option("--web-config", c->web_config,
                  "TLS and basic authentication for the HTTP endpoint from FILE, in the format "
                  "of Prometheus' exporter toolkit (tls_server_config, basic_auth_users with "
                  "bcrypt hashes); re-read on SIGHUP");
  cmd->add_option("--max-connections-per-client", c->max_connections_per_client,
                  "Open HTTP connections allowed from one client address; more are refused")
      ->capture_default_str();
  cmd->add_option("--metrics-names", c->metrics_names,
                  "Metric names on /metrics: gpudoctor, dcgm (dcgm-exporter's DCGM_FI_* names, "
                  "units and labels) or both (default: [metrics] names in the config, else "
                  "gpudoctor)");
  cmd->add_option("--metrics-top-processes", c->metrics_top_processes,
                  "Per-process series for at most N processes per GPU, the most GPU memory "
                  "first; 0 for none (default: [metrics] top_processes in the config, else 10)");
  cmd->callback([c, &global, exit_code] { *exit_code = RunAgentCommand(*c, global); });
}

}  // namespace gpudoctor
