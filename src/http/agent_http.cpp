#include "http/agent_http.h"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/recorded_report.h"
#include "http/httplib_config.h"
#include "render/prometheus_metrics.h"
#include "render/report_json.h"
#include "render/status_json.h"

namespace gpudoctor {
namespace {

// Enough threads that 50 scrapers holding keep-alive connections are all
// served at once; an idle thread costs only its stack.
constexpr std::size_t kServerThreads = 64;

void Fail(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(message + "\n", "text/plain; charset=utf-8");
}

// The rendered exposition of the latest snapshot, rendered once per snapshot
// and format however many scrapers ask.
class MetricsCache {
 public:
  std::string Get(const std::shared_ptr<const AgentLiveSnapshot>& snapshot,
                  ExpositionFormat format) {
    const auto i = static_cast<std::size_t>(format);
    std::lock_guard lock(mutex_);
    if (snapshot_[i] != snapshot) {
      text_[i] = RenderPrometheusMetrics(*snapshot, format);
      snapshot_[i] = snapshot;
    }
    return text_[i];
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<const AgentLiveSnapshot> snapshot_[2];
  std::string text_[2];
};

class Server final : public AgentHttpServer {
 public:
  Server(AgentHttpOptions options, const SnapshotBox& snapshots)
      : o_(std::move(options)), snapshots_(snapshots) {}
  ~Server() override {
    // stop() only acts once the server runs; it may not have got that far.
    for (int i = 0; i < 1000 && thread_.joinable() && !server_.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  Result<bool> Bind();
  void Serve() {
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  int port() const override { return port_; }

 private:
  void Routes();
  void Metrics(const httplib::Request& req, httplib::Response& res);
  void Health(httplib::Response& res);
  void Report(const httplib::Request& req, httplib::Response& res);

  AgentHttpOptions o_;
  const SnapshotBox& snapshots_;
  MetricsCache cache_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

Result<bool> Server::Bind() {
  server_.new_task_queue = [] { return new httplib::ThreadPool(kServerThreads); };
  server_.set_keep_alive_max_count(1000);
  // httplib's default also sets SO_REUSEPORT, which would let a second agent
  // share the port (and the kernel split the scrapes between the two)
  // instead of failing to bind.
  server_.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  Routes();
  errno = 0;
  if (o_.listen.port == 0) {
    port_ = server_.bind_to_any_port(o_.listen.host);
  } else if (server_.bind_to_port(o_.listen.host, o_.listen.port)) {
    port_ = o_.listen.port;
  }
  if (port_ <= 0) {
    const int err = errno;
    return Error{ErrorCode::kIo, "--listen " + o_.listen.host + ":" +
                                     std::to_string(o_.listen.port) + ": cannot listen" +
                                     (err != 0 ? std::string(": ") + std::strerror(err) : "")};
  }
  return true;
}

void Server::Routes() {
  server_.Get("/metrics",
              [this](const httplib::Request& req, httplib::Response& res) { Metrics(req, res); });
  server_.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) { Health(res); });
  server_.Get("/api/v1/status", [this](const httplib::Request&, httplib::Response& res) {
    auto s = snapshots_.Latest();
    if (!s) return Fail(res, 503, "no sample yet");
    res.set_content(StatusToJson(s->status).dump(2) + "\n", "application/json");
  });
  server_.Get("/api/v1/report",
              [this](const httplib::Request& req, httplib::Response& res) { Report(req, res); });
  server_.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (res.status == 404) Fail(res, 404, "no such path: " + req.path);
        return httplib::Server::HandlerResponse::Handled;
      }));
}

void Server::Metrics(const httplib::Request& req, httplib::Response& res) {
  auto s = snapshots_.Latest();
  if (!s) return Fail(res, 503, "no sample yet");
  const ExpositionFormat format = ChooseExposition(req.get_header_value("Accept"));
  res.set_content(cache_.Get(s, format), ExpositionContentType(format));
}

void Server::Health(httplib::Response& res) {
  auto s = snapshots_.Latest();
  if (!s) return Fail(res, 503, "not sampling yet");
  const auto now = std::chrono::system_clock::now();
  const auto stale = 3 * s->interval + std::chrono::seconds(5);
  if (now - s->published_at > stale) return Fail(res, 503, "the sampling loop has stopped");
  if (!s->last_sample_at || now - *s->last_sample_at > stale) {
    return Fail(res, 503,
                "not sampling: " + (s->status.nvml_error.empty() ? std::string("no recent sample")
                                                                 : s->status.nvml_error));
  }
  res.set_content("ok\n", "text/plain; charset=utf-8");
}

void Server::Report(const httplib::Request& req, httplib::Response& res) {
  RecordedWindowRequest r;
  r.data_dir = o_.data_dir;
  r.config = o_.config;
  r.option_prefix = "";
  Lang lang = Lang::kEn;
  for (const auto& [name, value] : req.params) {
    if (name == "since") {
      r.since = value;
    } else if (name == "from") {
      r.from = value;
    } else if (name == "to") {
      r.to = value;
    } else if (name == "gpu") {
      r.gpus.push_back(value);
    } else if (name == "lang" && (value == "en" || value == "zh")) {
      lang = value == "zh" ? Lang::kZh : Lang::kEn;
    } else {
      return Fail(
          res, 400,
          "bad query parameter " + name + "=" + value + " (since, from, to, gpu, lang=en|zh)");
    }
  }
  const WallTime now = std::chrono::system_clock::now();
  auto report = BuildRecordedReport(r, now);
  if (!report) {
    const ErrorCode code = report.error().code;
    return Fail(res,
                code == ErrorCode::kInvalid    ? 400
                : code == ErrorCode::kNotFound ? 404
                                               : 500,
                report.error().message);
  }
  res.set_content(ReportToJson((*report)->Context(now, lang)).dump(2) + "\n", "application/json");
}

}  // namespace

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return Error{ErrorCode::kInvalid, "--listen " + text + ": expected HOST:PORT"};
  }
  ListenAddress a;
  a.host = text.substr(0, colon);
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') {
    a.host = a.host.substr(1, a.host.size() - 2);
  }
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    return Error{ErrorCode::kInvalid, "--listen " + text + ": the port is not a number 0-65535"};
  }
  a.port = std::stoi(port);
  return a;
}

Result<std::unique_ptr<AgentHttpServer>> AgentHttpServer::Start(const AgentHttpOptions& options,
                                                                const SnapshotBox& snapshots) {
  auto server = std::make_unique<Server>(options, snapshots);
  if (auto bound = server->Bind(); !bound) return bound.error();
  server->Serve();
  return std::unique_ptr<AgentHttpServer>(std::move(server));
}

}  // namespace gpudoctor
