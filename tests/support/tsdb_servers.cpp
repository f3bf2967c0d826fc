#include "support/tsdb_servers.h"

#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/httplib_config.h"
#include "support/loopback.h"
#include "support/run_process.h"

namespace gpudoctor::test {

std::string ScrapeConfig(const std::vector<std::string>& targets, const std::string& interval) {
  std::string c = "global:\n  scrape_interval: " + interval + "\n  evaluation_interval: " +
                  interval + "\nscrape_configs:\n  - job_name: gpudoctor\n    static_configs:\n" +
                  "      - targets: [";
  for (std::size_t i = 0; i < targets.size(); ++i) c += (i ? ", '" : "'") + targets[i] + "'";
  return c + "]\n";
}

TsdbServer::~TsdbServer() {
  if (process_) {
    process_->Signal(SIGTERM);
    process_->Wait(std::chrono::seconds(15));
  }
}

std::string TsdbServer::Log() const {
  std::ifstream in(log_path_);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  return text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

bool TsdbServer::WaitReady(const std::string& path, std::chrono::seconds limit) {
  const int port = std::stoi(url_.substr(url_.rfind(':') + 1));
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(1);
  c.set_read_timeout(2);
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    auto r = c.Get(path.c_str());
    if (r && r->status == 200) return ready_ = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

std::unique_ptr<TsdbServer> TsdbServer::Prometheus(const std::vector<std::string>& targets,
                                                   const std::string& scrape_interval,
                                                   const std::string& tsdb_dir) {
  std::unique_ptr<TsdbServer> s(new TsdbServer());
  const int port = FreeLoopbackPort();
  s->url_ = "http://127.0.0.1:" + std::to_string(port);
  s->log_path_ = (s->dir_.path() / "prometheus.log").string();
  const std::string config = s->dir_.Write("prometheus.yml", ScrapeConfig(targets, scrape_interval));
  const std::string tsdb = tsdb_dir.empty() ? (s->dir_.path() / "tsdb").string() : tsdb_dir;
  s->process_ = std::make_unique<BackgroundProcess>(
      std::vector<std::string>{kPrometheusBinary, "--config.file=" + config,
                               "--storage.tsdb.path=" + tsdb,
                               // Backfilled blocks may be older than the default 15 days.
                               "--storage.tsdb.retention.time=3650d",
                               "--web.listen-address=127.0.0.1:" + std::to_string(port)},
      std::map<std::string, std::string>{}, s->log_path_);
  s->WaitReady("/-/ready", std::chrono::seconds(60));
  return s;
}

std::unique_ptr<TsdbServer> TsdbServer::VictoriaMetrics(const std::vector<std::string>& targets,
                                                        const std::string& scrape_interval) {
  std::unique_ptr<TsdbServer> s(new TsdbServer());
  const int port = FreeLoopbackPort();
  s->url_ = "http://127.0.0.1:" + std::to_string(port);
  s->log_path_ = (s->dir_.path() / "victoria-metrics.log").string();
  std::vector<std::string> argv = {kVictoriaMetricsBinary,
                                   "-storageDataPath=" + (s->dir_.path() / "data").string(),
                                   "-httpListenAddr=127.0.0.1:" + std::to_string(port),
                                   "-retentionPeriod=100y",
                                   // Recent samples are searchable at once, not after 30 s.
                                   "-search.latencyOffset=0s",
                                   "-search.disableCache"};
  if (!targets.empty()) {
    argv.push_back("-promscrape.config=" +
                   s->dir_.Write("scrape.yml", ScrapeConfig(targets, scrape_interval)));
    argv.push_back("-promscrape.config.strictParse=false");
  }
  s->process_ = std::make_unique<BackgroundProcess>(argv, std::map<std::string, std::string>{},
                                                    s->log_path_);
  s->WaitReady("/health", std::chrono::seconds(60));
  return s;
}

std::string CreateBlocksFromOpenMetrics(const std::string& openmetrics_file,
                                        const std::string& tsdb_dir) {
  ProcessOptions o;
  o.timeout = std::chrono::minutes(5);
  auto r = RunProcess({kPromtoolBinary, "tsdb", "create-blocks-from", "openmetrics",
                       openmetrics_file, tsdb_dir},
                      o);
  if (r.exit_code == 0) return "";
  return "promtool exit " + std::to_string(r.exit_code) + ": " + r.err.substr(0, 2000);
}

bool WaitForQuery(const std::string& url, const std::string& query, std::chrono::seconds limit) {
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(5);
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    auto r = c.Get("/api/v1/query", httplib::Params{{"query", query}}, httplib::Headers{});
    if (r && r->status == 200) {
      nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
      if (j.is_object() && !j["data"]["result"].empty()) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

}  // namespace gpudoctor::test
