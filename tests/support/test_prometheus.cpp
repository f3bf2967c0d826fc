#include "support/test_prometheus.h"

#include <signal.h>

#include <filesystem>
#include <thread>

#include "core/httplib_config.h"
#include "support/loopback.h"
#include "support/tsdb_servers.h"

namespace gpudoctor::test {
namespace {

nlohmann::json JsonBody(const httplib::Result& r) {
  // 400 carries Prometheus's error document (a query it rejects).
  if (!r || (r->status != 200 && r->status != 400)) return nlohmann::json();
  auto doc = nlohmann::json::parse(r->body, nullptr, false);
  return doc.is_discarded() ? nlohmann::json() : doc;
}

}  // namespace

bool TestPrometheus::Installed() { return std::filesystem::exists(kPrometheusBinary); }

TestPrometheus::TestPrometheus(const std::vector<std::string>& targets,
                               const std::vector<std::string>& rule_files,
                               const std::string& job_settings) {
  port_ = FreeLoopbackPort();
  // The same scrape configuration as TsdbServer's, plus the rule files.
  std::string config = ScrapeConfig(targets, "1s") + job_settings;
  if (!rule_files.empty()) {
    config += "rule_files:\n";
    for (const auto& f : rule_files) config += "  - " + f + "\n";
  }
  const std::string config_path = dir_.Write("prometheus.yml", config);
  process_ = std::make_unique<BackgroundProcess>(
      std::vector<std::string>{kPrometheusBinary, "--config.file=" + config_path,
                               "--storage.tsdb.path=" + (dir_.path() / "tsdb").string(),
                               "--web.listen-address=127.0.0.1:" + std::to_string(port_)},
      std::map<std::string, std::string>{}, log_path());
}

TestPrometheus::~TestPrometheus() { Stop(); }

std::string TestPrometheus::log_path() const { return (dir_.path() / "prometheus.log").string(); }

nlohmann::json TestPrometheus::Get(const std::string& path) const {
  httplib::Client c("127.0.0.1", port_);
  c.set_connection_timeout(2);
  c.set_read_timeout(5);
  return JsonBody(c.Get(path.c_str()));
}

nlohmann::json TestPrometheus::Query(const std::string& expr) const {
  httplib::Client c("127.0.0.1", port_);
  c.set_connection_timeout(2);
  c.set_read_timeout(5);
  return JsonBody(c.Post("/api/v1/query", httplib::Params{{"query", expr}}));
}

nlohmann::json TestPrometheus::WaitForResult(const std::string& expr,
                                             std::chrono::seconds limit) const {
  const auto until = std::chrono::steady_clock::now() + limit;
  nlohmann::json last;
  while (std::chrono::steady_clock::now() < until) {
    last = Query(expr);
    if (!ResultOf(last).empty()) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return last;
}

bool TestPrometheus::Stop() {
  if (!started()) return true;
  process_->Signal(SIGTERM);
  const bool ended = process_->Wait(std::chrono::seconds(20)) != -1;
  process_.reset();
  return ended;
}

nlohmann::json ResultOf(const nlohmann::json& answer) {
  if (!answer.is_object() || answer.value("status", "") != "success" ||
      !answer.contains("data") || !answer["data"].contains("result") ||
      !answer["data"]["result"].is_array()) {
    return nlohmann::json::array();
  }
  return answer["data"]["result"];
}

}  // namespace gpudoctor::test
