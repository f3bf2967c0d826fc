// A client of Prometheus' HTTP query API (Prometheus, Thanos, Mimir,
// VictoriaMetrics): instant and range queries over HTTP or HTTPS, with a
// bearer token or basic auth read from a file, a CA file and a timeout.
// Every failure is one line naming the server and the query. Each call opens
// its own connection, so calls may run on several threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/result.h"
#include "core/time_format.h"
#include "prom/prom_response.h"

namespace gpudoctor {

struct PromOptions {
  std::string url;                // http(s)://host[:port][/path prefix]
  std::string bearer_token_file;  // the token, one line
  std::string basic_auth_file;    // "user:password", one line
  std::string ca_file;            // PEM bundle to verify the server with
  std::chrono::milliseconds timeout{30000};  // per query, the answer's body included
  // The most of one answer kept (after decompression); a larger one is an
  // error naming the cap. At most four queries run at once (fleet).
  std::size_t max_answer_bytes = std::size_t{64} << 20;
};

// The first point of a range read at `step` whose last point is `to` and
// whose first lies at or before `from`: a grid laid back from the window's
// end, so that a window of no whole number of steps still has its end read.
WallTime FirstPointAtOrBefore(WallTime from, WallTime to, std::chrono::seconds step);

class PromClient {
 public:
  // Checks the URL and reads the credential files; kInvalid names the option.
  static Result<std::unique_ptr<PromClient>> Open(const PromOptions& options);

  Result<PromAnswer> Query(const std::string& expr, WallTime at) const;
  Result<PromAnswer> QueryRange(const std::string& expr, WallTime from, WallTime to,
                                std::chrono::seconds step) const;

  // Queries sent so far (for the fleet's bounded-query promise and tests).
  int queries_sent() const { return queries_sent_.load(); }
  const std::string& url() const { return base_url_; }

 private:
  PromClient() = default;
  Result<PromAnswer> Post(const std::string& path, const std::string& form,
                          const std::string& what) const;

  PromOptions options_;
  std::string base_url_;     // scheme://host:port, as given
  std::string path_prefix_;  // "" or "/prometheus"
  std::string bearer_token_;
  std::string basic_user_;
  std::string basic_password_;
  mutable std::atomic<int> queries_sent_{0};
  // The first query that ran past the timeout or the cap; later ones are
  // not sent.
  mutable std::mutex gave_up_mutex_;
  mutable std::optional<Error> gave_up_;
};

}  // namespace gpudoctor
