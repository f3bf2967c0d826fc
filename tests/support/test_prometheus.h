// A real Prometheus (Debian package prometheus) on loopback for end-to-end
// tests: it scrapes the given targets every second as job "gpudoctor" and
// answers PromQL through its HTTP API. Stopped (SIGTERM, then SIGKILL by
// BackgroundProcess) when the object goes away, whatever the test did.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/background_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {

class TestPrometheus {
 public:
  // /usr/bin/prometheus exists.
  static bool Installed();

  // targets: "127.0.0.1:PORT" each; rule_files: absolute paths;
  // job_settings: more keys of the scrape job, each line indented by four
  // spaces ("    scheme: https\n").
  explicit TestPrometheus(const std::vector<std::string>& targets,
                          const std::vector<std::string>& rule_files = {},
                          const std::string& job_settings = "");
  ~TestPrometheus();
  TestPrometheus(const TestPrometheus&) = delete;
  TestPrometheus& operator=(const TestPrometheus&) = delete;

  bool started() const { return process_ && process_->started(); }
  int port() const { return port_; }
  // Where Prometheus writes its log (for failure messages).
  std::string log_path() const;

  // The answer of GET `path` (e.g. "/api/v1/alerts"), or null on a
  // transport error, another status than 200 or 400, or a body that is not JSON.
  nlohmann::json Get(const std::string& path) const;
  // The answer of /api/v1/query for `expr` (sent form-encoded), as Get.
  nlohmann::json Query(const std::string& expr) const;
  // Query() until data.result is a non-empty list or `limit` passes; the
  // last answer either way.
  nlohmann::json WaitForResult(const std::string& expr, std::chrono::seconds limit) const;

  // SIGTERM, then waits up to 20 s; true when it ended.
  bool Stop();

 private:
  TempDir dir_;
  int port_ = 0;
  std::unique_ptr<BackgroundProcess> process_;
};

// The series of a successful instant query's result (data.result); an empty
// list for anything else.
nlohmann::json ResultOf(const nlohmann::json& answer);

}  // namespace gpudoctor::test
