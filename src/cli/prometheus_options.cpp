#include "cli/prometheus_options.h"

#include <CLI/CLI.hpp>

#include "core/duration.h"

namespace gpudoctor {

void AddPrometheusClientOptions(CLI::App& cmd, PrometheusCliOptions& options) {
  cmd.add_option("--prometheus-token-file", options.prom.bearer_token_file,
                 "Send the bearer token in FILE (one line) to Prometheus");
  cmd.add_option("--prometheus-basic-auth-file", options.prom.basic_auth_file,
                 "Send basic auth from FILE (one line user:password) to Prometheus");
  cmd.add_option("--prometheus-ca-file", options.prom.ca_file,
                 "Verify the https Prometheus with the CA certificates in FILE (PEM)");
  cmd.add_option("--prometheus-timeout", options.timeout,
                 "Give up on a query, its answer included, after this long")
      ->capture_default_str();
  cmd.add_option("--prometheus-max-mb", options.max_answer_mb,
                 "Refuse a query's answer larger than this many MiB (a hostile or misconfigured "
                 "server cannot fill the memory)")
      ->capture_default_str();
}

Result<std::unique_ptr<PromClient>> OpenPrometheus(const PrometheusCliOptions& options) {
  auto timeout = ParseDuration(options.timeout);
  if (!timeout || *timeout <= std::chrono::milliseconds(0)) {
    return Error{ErrorCode::kInvalid,
                 "--prometheus-timeout " + options.timeout + ": expected a duration such as 30s"};
  }
  if (options.max_answer_mb < 1 || options.max_answer_mb > 65536) {
    return Error{ErrorCode::kInvalid, "--prometheus-max-mb " +
                                          std::to_string(options.max_answer_mb) +
                                          ": expected 1 to 65536"};
  }
  PromOptions prom = options.prom;
  prom.timeout = *timeout;
  prom.max_answer_bytes = static_cast<std::size_t>(options.max_answer_mb) << 20;
  return PromClient::Open(prom);
}

}  // namespace gpudoctor
