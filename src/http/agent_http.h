// The agent's HTTP endpoint: /metrics (Prometheus text or OpenMetrics),
// /healthz, /api/v1/status (the status --json document) and
// /api/v1/report?since=... (the JSON report of a recorded window). Runs on
// its own threads (http/event_server.h: one event loop, workers for the
// report) and only reads the latest published snapshot, so a scrape never
// waits on the driver; the report opens the store read-only. With a web
// config, TLS and basic authentication guard every path but /healthz.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/config.h"
#include "core/result.h"
#include "http/listen_address.h"
#include "http/web_config.h"
#include "render/agent_snapshot.h"
#include "render/prometheus_metrics.h"

namespace gpudoctor {

struct AgentHttpOptions {
  ListenAddress listen;
  std::string data_dir;  // the store /api/v1/report reads
  Config config;         // thresholds for the report's rules
  MetricsRenderOptions metrics;  // names and per-process series of /metrics
  std::optional<WebConfig> web;  // --web-config: TLS and users
  unsigned per_client_connections = 64;
  // A second listener serving /healthz alone, plain HTTP without the web
  // config (Kubernetes' probes, whatever TLS the main one asks for).
  std::optional<ListenAddress> health_listen;
};

class AgentHttpServer {
 public:
  // Binds and starts serving on background threads. A port in use or an
  // address that cannot be bound is a one-line kIo error.
  static Result<std::unique_ptr<AgentHttpServer>> Start(const AgentHttpOptions& options,
                                                        SnapshotSource latest);
  virtual ~AgentHttpServer() = default;
  // The port actually bound.
  virtual int port() const = 0;
  // The health listener's port; 0 when there is none.
  virtual int health_port() const = 0;
  // New TLS settings and users for new connections (SIGHUP); the previous
  // ones stay when this fails. Thread-safe.
  virtual Status Reload(WebConfig web) = 0;
};

}  // namespace gpudoctor
