#include "http/agent_http.h"

#include <mutex>
#include <nlohmann/json.hpp>

#include "core/json_dump.h"
#include "http/content_encoding.h"
#include "http/event_server.h"
#include "render/prometheus_metrics.h"
#include "render/report_json.h"
#include "render/status_json.h"
#include "report/recorded_report.h"
#include "render/latch_json.h"
#include "store/latch_ack.h"

namespace gpudoctor {
namespace {

HttpResponse Fail(int status, const std::string& message) { return TextResponse(status, message); }

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

HttpResponse ExpositionResponse(std::shared_ptr<const std::string> body, const char* content_type) {
  HttpResponse r;
  r.body = std::move(body);
  r.content_type = content_type;
  return r;
}

class Server final : public AgentHttpServer {
 public:
  Server(AgentHttpOptions options, SnapshotSource latest)
      : o_(std::move(options)), latest_(std::move(latest)) {}
  Status Bind();
  int port() const override { return server_->port(); }
  int health_port() const override { return health_ ? health_->port() : 0; }
  Status Reload(WebConfig web) override { return server_->Reload(std::move(web)); }

 private:
  HttpResponse Metrics(const HttpRequest& req);
  HttpResponse Health();
  HttpResponse StatusPage();
  HttpResponse Report(const HttpRequest& req);
  HttpResponse Ack(const HttpRequest& req) const;

  AgentHttpOptions o_;
  SnapshotSource latest_;
  MetricsCache cache_{o_.metrics};
  std::unique_ptr<EventServer> server_;
  std::unique_ptr<EventServer> health_;
};

Status Server::Bind() {
  EventServerOptions e;
  e.listen = o_.listen;
  e.web = o_.web;
  e.per_client_connections = o_.per_client_connections;
  e.routes = {
      {"/metrics", [this](const HttpRequest& r) { return Metrics(r); }, false, false, false},
      {"/healthz", [this](const HttpRequest&) { return Health(); }, false, true, false},
      {"/api/v1/status", [this](const HttpRequest&) { return StatusPage(); }, false, false, false},
      {"/api/v1/report", [this](const HttpRequest& r) { return Report(r); }, true, false, false},
      {"/api/v1/ack", [this](const HttpRequest& r) { return Ack(r); }, true, false, true},
  };
  auto started = EventServer::Start(std::move(e));
  if (!started) return started.error();
  server_ = std::move(*started);
  if (o_.health_listen) {
    EventServerOptions h;
    h.listen = *o_.health_listen;
    h.per_client_connections = o_.per_client_connections;
    h.routes = {{"/healthz", [this](const HttpRequest&) { return Health(); }, false, true, false}};
    auto health = EventServer::Start(std::move(h));
    if (!health) return health.error();
    health_ = std::move(*health);
  }
  return OkStatus();
}

HttpResponse Server::StatusPage() {
  auto s = latest_();
  if (!s) return Fail(503, "no sample yet");
  HttpResponse r;
  r.content_type = "application/json";
  r.body = std::make_shared<const std::string>(DumpJson(StatusToJson(s->status), 2) + "\n");
  return r;
}

HttpResponse Server::Metrics(const HttpRequest& req) {
  auto s = latest_();
  if (!s) return Fail(503, "no sample yet");
  const ExpositionFormat format = ChooseExposition(req.accept);
  HttpResponse r;
  if (AcceptsGzip(req.accept_encoding)) {
    if (auto packed = cache_.Get(s, format, true)) {
      r = ExpositionResponse(std::move(packed), ExpositionContentType(format));
      r.headers.emplace_back("Content-Encoding", "gzip");
    }
  }
  if (!r.body) r = ExpositionResponse(cache_.Get(s, format, false), ExpositionContentType(format));
  r.headers.emplace_back("Vary", "Accept-Encoding");
  return r;
}

HttpResponse Server::Health() {
  auto s = latest_();
  if (!s) return Fail(503, "not sampling yet");
  const auto now = std::chrono::system_clock::now();
  const auto stale = 3 * s->interval + std::chrono::seconds(5);
  if (now - s->published_at > stale) return Fail(503, "the sampling loop has stopped");
  if (!s->last_sample_at || now - *s->last_sample_at > stale) {
    return Fail(503,
                "not sampling: " + (s->status.nvml_error.empty() ? std::string("no recent sample")
                                                                 : s->status.nvml_error));
  }
  // Recording into a file that is gone: what it records is lost at exit.
  if (s->store.file_gone) return Fail(503, "store: " + s->store.last_error);
  // Still monitoring: a damaged store was moved aside and a fresh one
  // started; the probe stays healthy but names what happened.
  return TextResponse(200, s->store_damage.empty() ? "ok" : "ok; store damaged: " + s->store_damage);
}

HttpResponse Server::Report(const HttpRequest& req) {
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
          400, "bad query parameter " + name + "=" + value + " (since, from, to, gpu, lang=en|zh)");
    }
  }
  const WallTime now = std::chrono::system_clock::now();
  auto report = BuildRecordedReport(r, now);
  if (!report) {
    const ErrorCode code = report.error().code;
    return Fail(code == ErrorCode::kInvalid    ? 400
                : code == ErrorCode::kNotFound ? 404
                                               : 500,
                report.error().message);
  }
  HttpResponse out;
  out.content_type = "application/json";
  out.body = std::make_shared<const std::string>(
      DumpJson(ReportToJson((*report)->Context(now, lang)), 2) + "\n");
  return out;
}

// POST /api/v1/ack?finding=...&gpu=...&reason=...: `gpudoctor ack` over
// HTTP, for an authenticated user (recorded as who acknowledged).
HttpResponse Server::Ack(const HttpRequest& req) const {
  if (req.user.empty()) {
    return Fail(403,
                "acknowledging over HTTP needs basic_auth_users in the agent's --web-config "
                "(who acknowledged is recorded); on the node, use gpudoctor ack");
  }
  AckRequest a;
  a.who = req.user;
  a.via = "the agent's API";
  for (const auto& [name, value] : req.params) {
    if (name == "finding") {
      a.finding = value;
    } else if (name == "gpu") {
      a.gpu = value;
    } else if (name == "reason") {
      a.reason = value;
    } else {
      return Fail(400, "bad query parameter " + name + " (finding, gpu, reason)");
    }
  }
  auto acked = AcknowledgeLatches(o_.data_dir, a, std::chrono::system_clock::now());
  if (!acked) {
    const ErrorCode code = acked.error().code;
    return Fail(code == ErrorCode::kInvalid    ? 400
                : code == ErrorCode::kNotFound ? 404
                                               : 500,
                acked.error().message);
  }
  const nlohmann::ordered_json doc = AcknowledgedToJson(a.who, *acked);
  HttpResponse out;
  out.content_type = "application/json";
  out.body = std::make_shared<const std::string>(DumpJson(doc, 2) + "\n");
  return out;
}

}  // namespace


Result<std::unique_ptr<AgentHttpServer>> AgentHttpServer::Start(const AgentHttpOptions& options,
                                                                SnapshotSource latest) {
  auto server = std::make_unique<Server>(options, std::move(latest));
  if (auto bound = server->Bind(); !bound) return bound.error();
  return std::unique_ptr<AgentHttpServer>(std::move(server));
}

}  // namespace gpudoctor
