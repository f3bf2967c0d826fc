// gpudoctor agent: samples every GPU every interval into the store, records
// kernel and NVML events as they happen, re-evaluates the rules over a
// sliding window and records when each finding starts and ends. Keeps going
// through lost or hung GPUs, a driver that goes away and comes back, and a
// full disk; SIGTERM/SIGINT stop it cleanly, SIGHUP reloads the config.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent_signals.h"
#include "collect/evidence.h"
#include "core/config.h"
#include "http/agent_http.h"
#include "nvml/nvml_session.h"
#include "store/store.h"

namespace gpudoctor {

struct AgentOptions {
  NvmlOptions nvml;
  StoreOptions store;
  std::chrono::milliseconds interval{1000};         // GPU sampling
  std::chrono::milliseconds rules_window{60000};    // rules look this far back
  std::chrono::milliseconds evaluate_every{10000};  // rules re-run this often
  std::chrono::milliseconds facts_every{300000};    // host/PCI/versions refresh
  std::optional<std::string> config_path;           // re-read on SIGHUP
  Config config;
  EvidenceOptions evidence;  // ctx.root, pings, expected GPUs
  bool watch_nvml_events = true;
  bool follow_kernel_log = true;
  // Stop after this long (tests, benchmarks); nullopt: until a signal.
  std::optional<std::chrono::milliseconds> run_for;
  // The HTTP endpoint (/metrics, /healthz, /api/v1/...); nullopt: none.
  std::optional<ListenAddress> listen;
  // --health-listen: /healthz alone, plain HTTP, no credentials (for
  // probes that cannot present TLS client certificates or passwords).
  std::optional<ListenAddress> health_listen;
  MetricsRenderOptions metrics;  // what /metrics serves (--metrics-names, ...)
  // --web-config: TLS and basic authentication, re-read on SIGHUP.
  std::optional<std::string> web_config_path;
  std::optional<WebConfig> web;  // as read at start
  unsigned per_client_connections = 64;
};

// Runs until a stop is requested (or run_for). Returns the process exit code: 0 after
// a clean stop, 3 when the store cannot be opened or the listen address
// cannot be bound (or served with the web config's TLS settings).
int RunAgent(AgentOptions options, AgentSignals& signals);

// The agent's live state, written as JSON to <data_dir>/agent-state.json
// every few seconds (replaced atomically), for `gpudoctor check` and humans.
inline constexpr const char* kAgentStateFile = "agent-state.json";

}  // namespace gpudoctor
