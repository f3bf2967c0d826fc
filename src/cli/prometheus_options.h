// The options of the commands that read Prometheus (fleet, report
// --prometheus): credentials, CA file and timeout; and opening the client.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"
#include "prom/prom_client.h"

namespace CLI {
class App;
}

namespace gpudoctor {

struct PrometheusCliOptions {
  PromOptions prom;
  std::string timeout = "30s";
  std::int64_t max_answer_mb = 64;
};

// --prometheus-token-file, --prometheus-basic-auth-file, --prometheus-ca-file,
// --prometheus-timeout, --prometheus-max-mb (not --prometheus itself: each command says what it is).
void AddPrometheusClientOptions(CLI::App& cmd, PrometheusCliOptions& options);
// Errors are one line naming the option.
Result<std::unique_ptr<PromClient>> OpenPrometheus(const PrometheusCliOptions& options);

}  // namespace gpudoctor
