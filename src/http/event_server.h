// The HTTP server under the agent's endpoint: libmicrohttpd driven by one
// event-loop thread (epoll), so an idle or slow connection costs a socket
// and a small buffer, not a thread. Against clients that trickle bytes:
//   - the whole request head must arrive within `head_deadline` of the
//     connection opening (or of the previous response on a kept-alive
//     connection), or the connection is closed;
//   - at most `per_client_connections` connections per client address;
//   - a connection silent for `idle_timeout` is closed.
// Routes marked slow (/api/v1/report) and first-time bcrypt checks run on
// a small pool of worker threads, so they never hold up the event loop.
// TLS (GnuTLS) and basic authentication come from a WebConfig.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "core/result.h"
#include "http/http_exchange.h"
#include "http/listen_address.h"
#include "http/web_config.h"

namespace gpudoctor {

struct EventServerOptions {
  ListenAddress listen;
  std::vector<HttpRoute> routes;
  std::chrono::seconds head_deadline{10};
  std::chrono::seconds idle_timeout{15};
  unsigned per_client_connections = 64;
  unsigned workers = 2;
  std::optional<WebConfig> web;  // nullopt: plain HTTP, no authentication
};

class EventServer {
 public:
  // Binds, then serves on its own thread. Errors are one line: kIo for an
  // address that cannot be bound ("--listen H:P: cannot listen: ..."),
  // kInvalid for TLS material GnuTLS refuses (naming the web config).
  static Result<std::unique_ptr<EventServer>> Start(EventServerOptions options);
  virtual ~EventServer() = default;
  virtual int port() const = 0;
  // Serves new connections with `config` (TLS and users) from now on,
  // keeping the listening socket; the previous settings stay when this
  // fails. Waits for the event loop (bounded). Thread-safe.
  virtual Status Reload(WebConfig config) = 0;
};

}  // namespace gpudoctor
