#include "http/agent_http.h"

#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/json_dump.h"
#include "report/recorded_report.h"
#include "http/content_encoding.h"
#include "core/httplib_config.h"
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

// The rendered exposition of the latest snapshot, rendered (and gzipped)
// once per snapshot, format and encoding however many scrapers ask. The
// work runs outside the lock: while one scrape renders a new snapshot, the
// others are answered at once with the previous body (at most one sample
// old) instead of queueing behind it.
class MetricsCache {
 public:
  explicit MetricsCache(MetricsRenderOptions options) : options_(std::move(options)) {}
  // The body to serve; nullptr only when gzip was asked for and zlib failed.
  std::shared_ptr<const std::string> Get(
      const std::shared_ptr<const AgentLiveSnapshot>& snapshot, ExpositionFormat format,
      bool gzip) {
    Slot& slot = slots_[static_cast<std::size_t>(format) * 2 + (gzip ? 1 : 0)];
    {
      std::lock_guard lock(mutex_);
      if (slot.snapshot == snapshot) return slot.body;
      if (slot.rendering && slot.body) return slot.body;
      slot.rendering = true;
    }
    std::shared_ptr<const std::string> body;
    if (!gzip) {
      body = std::make_shared<const std::string>(RenderPrometheusMetrics(*snapshot, format, options_));
    } else if (auto packed = GzipCompress(*Get(snapshot, format, false))) {
      body = std::make_shared<const std::string>(std::move(*packed));
    }
    std::lock_guard lock(mutex_);
    slot.rendering = false;
    // A slower render of an older snapshot must not replace a newer one.
    if (body && (!slot.snapshot || slot.snapshot->published_at <= snapshot->published_at)) {
      slot.snapshot = snapshot;
      slot.body = body;
    }
    return body;
  }

 private:
  struct Slot {
    std::shared_ptr<const AgentLiveSnapshot> snapshot;
    std::shared_ptr<const std::string> body;
    bool rendering = false;
  };
  const MetricsRenderOptions options_;
  std::mutex mutex_;
  Slot slots_[4];
};

// Serves `body` without copying it, and as it is: httplib compresses a
// set_content() body itself when the client accepts gzip, but leaves a
// sized content provider alone.
void ServeShared(httplib::Response& res, std::shared_ptr<const std::string> body,
                 const char* content_type) {
  const std::size_t size = body->size();
  res.set_content_provider(size, content_type,
                           [body = std::move(body)](std::size_t offset, std::size_t length,
                                                    httplib::DataSink& sink) {
                             return sink.write(body->data() + offset, length);
                           });
}

// httplib listens with a backlog of 5: 50 scrapers connecting at once
// overflow it, and the kernel drops their SYNs, which are retried after a
// second. Listening again on the bound socket (found by its port, as
// httplib keeps the descriptor private) raises the backlog; Linux allows it.
void WidenListenBacklog(int port) {
  for (int fd = 0; fd < 1024; ++fd) {
    int listening = 0;
    socklen_t len = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening) continue;
    sockaddr_storage a{};
    socklen_t alen = sizeof a;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &alen) != 0) continue;
    int bound = -1;
    if (a.ss_family == AF_INET) bound = ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
    if (a.ss_family == AF_INET6) bound = ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
    if (bound == port) listen(fd, SOMAXCONN);
  }
}

class Server final : public AgentHttpServer {
 public:
  Server(AgentHttpOptions options, SnapshotSource latest)
      : o_(std::move(options)), latest_(std::move(latest)) {}
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
  SnapshotSource latest_;
  MetricsCache cache_{o_.metrics};
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

Result<bool> Server::Bind() {
  server_.new_task_queue = [] { return new httplib::ThreadPool(kServerThreads); };
  server_.set_keep_alive_max_count(1000);
  // A scraper sends its request at once; a client that sends half a request
  // and stalls holds a server thread only this long.
  server_.set_read_timeout(2, 0);
  // httplib's default also sets SO_REUSEPORT, which would let a second agent
  // share the port (and the kernel split the scrapes between the two)
  // instead of failing to bind.
  // TCP_NODELAY (inherited by accepted connections on Linux): httplib
  // writes the headers and a body separately, and with Nagle a small
  // (gzipped) body waits for the client's delayed ACK of the headers,
  // 40 ms on Linux.
  server_.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  });
  Routes();
  errno = 0;
  if (o_.listen.port == 0) {
    port_ = server_.bind_to_any_port(o_.listen.host);
  } else if (server_.bind_to_port(o_.listen.host, o_.listen.port)) {
    port_ = o_.listen.port;
  }
  if (port_ > 0) WidenListenBacklog(port_);
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
    auto s = latest_();
    if (!s) return Fail(res, 503, "no sample yet");
    res.set_content(DumpJson(StatusToJson(s->status), 2) + "\n", "application/json");
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
  auto s = latest_();
  if (!s) return Fail(res, 503, "no sample yet");
  const ExpositionFormat format = ChooseExposition(req.get_header_value("Accept"));
  res.set_header("Vary", "Accept-Encoding");
  if (AcceptsGzip(req.get_header_value("Accept-Encoding"))) {
    if (auto packed = cache_.Get(s, format, true)) {
      res.set_header("Content-Encoding", "gzip");
      return ServeShared(res, std::move(packed), ExpositionContentType(format));
    }
  }
  ServeShared(res, cache_.Get(s, format, false), ExpositionContentType(format));
}

void Server::Health(httplib::Response& res) {
  auto s = latest_();
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
  res.set_content(DumpJson(ReportToJson((*report)->Context(now, lang)), 2) + "\n", "application/json");
}

}  // namespace


Result<std::unique_ptr<AgentHttpServer>> AgentHttpServer::Start(const AgentHttpOptions& options,
                                                                SnapshotSource latest) {
  auto server = std::make_unique<Server>(options, std::move(latest));
  if (auto bound = server->Bind(); !bound) return bound.error();
  server->Serve();
  return std::unique_ptr<AgentHttpServer>(std::move(server));
}

}  // namespace gpudoctor
