// Real time-series engines for tests, on loopback: a Prometheus (Debian
// package prometheus) scraping given targets or serving a TSDB made by
// `promtool tsdb create-blocks-from openmetrics`, and a VictoriaMetrics
// (package victoria-metrics) that scrapes the same targets or takes an
// import. Each waits until it answers and is stopped (SIGTERM, then SIGKILL)
// when the object goes away.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/background_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {

inline constexpr const char* kPrometheusBinary = "/usr/bin/prometheus";
inline constexpr const char* kPromtoolBinary = "/usr/bin/promtool";
inline constexpr const char* kVictoriaMetricsBinary = "/usr/bin/victoria-metrics";

class TsdbServer {
 public:
  ~TsdbServer();
  // The query API's base URL, "http://127.0.0.1:PORT".
  const std::string& url() const { return url_; }
  bool ready() const { return ready_; }
  // The server's log, for a failing test's message.
  std::string Log() const;

  // Prometheus scraping `targets` ("127.0.0.1:PORT") every scrape_interval
  // under job "gpudoctor"; or, with empty targets, serving `tsdb_dir`.
  static std::unique_ptr<TsdbServer> Prometheus(const std::vector<std::string>& targets,
                                                const std::string& scrape_interval,
                                                const std::string& tsdb_dir = "");
  // VictoriaMetrics scraping `targets` the same way (or nothing).
  static std::unique_ptr<TsdbServer> VictoriaMetrics(const std::vector<std::string>& targets,
                                                     const std::string& scrape_interval);

 private:
  TsdbServer() = default;
  bool WaitReady(const std::string& path, std::chrono::seconds limit);
  TempDir dir_;
  std::unique_ptr<BackgroundProcess> process_;
  std::string url_;
  std::string log_path_;
  bool ready_ = false;
};

// A scrape configuration for `targets` under job "gpudoctor".
std::string ScrapeConfig(const std::vector<std::string>& targets, const std::string& interval);

// Turns OpenMetrics text into TSDB blocks in `tsdb_dir` with promtool; the
// error output when it fails, empty on success.
std::string CreateBlocksFromOpenMetrics(const std::string& openmetrics_file,
                                        const std::string& tsdb_dir);

// Polls the engine at `url` until the instant query `query` has a result;
// false when it has none after `limit`.
bool WaitForQuery(const std::string& url, const std::string& query, std::chrono::seconds limit);

}  // namespace gpudoctor::test
