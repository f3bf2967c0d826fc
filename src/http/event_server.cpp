#include "http/event_server.h"

#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "http/basic_auth.h"

namespace gpudoctor {
namespace event_server {

using Clock = std::chrono::steady_clock;

// A fixed set of threads taking jobs from a bounded queue.
class WorkerPool {
 public:
  WorkerPool(unsigned threads, std::size_t max_queued) : max_queued_(max_queued) {
    for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // False when the queue is full: the caller answers 503 instead.
  bool Post(std::function<void()> job) {
    {
      std::lock_guard lock(mutex_);
      if (queue_.size() >= max_queued_) return false;
      queue_.push_back(std::move(job));
    }
    wake_.notify_one();
    return true;
  }

 private:
  void Run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }
  const std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// What one request carries between the calls MHD makes for it.
struct Exchange {
  bool started = false;            // Begin ran (the loop thread's)
  std::string method;              // the request's
  std::atomic<bool> ready{false};  // response is set (by a worker)
  HttpResponse response;
};

// The settings one MHD daemon runs with; replaced as a whole on reload.
struct Settings {
  std::optional<TlsServerConfig> tls;
  std::shared_ptr<BasicAuthUsers> users;  // null: no authentication
  std::string priorities;
};

Settings SettingsFrom(const std::optional<WebConfig>& web) {
  Settings s;
  if (!web) return s;
  s.tls = web->tls;
  if (!web->basic_auth_users.empty())
    s.users = std::make_shared<BasicAuthUsers>(web->basic_auth_users);
  if (s.tls) s.priorities = TlsPriorities(s.tls->min_version, s.tls->max_version);
  return s;
}

Result<int> Listen(const ListenAddress& at) {
  const std::string what =
      "--listen " + at.host + ":" + std::to_string(at.port) + ": cannot listen";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(at.port);
  if (const int rc =
          getaddrinfo(at.host.empty() ? nullptr : at.host.c_str(), port.c_str(), &hints, &found);
      rc != 0) {
    return Error{ErrorCode::kIo, what + ": " + gai_strerror(rc)};
  }
  int err = 0;
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    int yes = 1;
    // SO_REUSEADDR only: SO_REUSEPORT would let a second agent share the
    // port instead of failing to bind. TCP_NODELAY is inherited by the
    // accepted connections.
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0)
    return Error{ErrorCode::kIo, what + (err ? std::string(": ") + std::strerror(err) : "")};
  return fd;
}

// As many connections as file descriptors allow: the soft limit is raised
// to the hard one (systemd's default soft limit is 1024), leaving room for
// the store, the kernel log and NVML.
unsigned ConnectionLimit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return 512;
  const rlim_t want = std::min<rlim_t>(r.rlim_max, 65536);
  if (r.rlim_cur < want) {
    r.rlim_cur = want;
    setrlimit(RLIMIT_NOFILE, &r);
    getrlimit(RLIMIT_NOFILE, &r);
  }
  const rlim_t room = r.rlim_cur > 256 ? r.rlim_cur - 128 : 64;
  return static_cast<unsigned>(std::min<rlim_t>(room, 60000));
}

class Server final : public EventServer {
 public:
  Server(EventServerOptions options, int listen_fd, int port)
      : o_(std::move(options)),
        listen_fd_(listen_fd),
        port_(port),
        connection_limit_(ConnectionLimit()),
        workers_(o_.workers, 64) {}
  ~Server() override {
    stop_ = true;
    if (loop_.joinable()) loop_.join();
    if (daemon_) StopDaemon(daemon_);
    close(listen_fd_);
  }
  Status Begin() {
    settings_ = SettingsFrom(o_.web);
    daemon_ = StartDaemon(settings_);
    if (!daemon_) return StartFailed(o_.web);
    loop_ = std::thread([this] { Loop(); });
    return OkStatus();
  }
  int port() const override { return port_; }
  Status Reload(WebConfig config) override;

 private:
  struct PendingReload {
    WebConfig config;
    std::promise<Status> done;
  };

  Error StartFailed(const std::optional<WebConfig>& web) const {
    return Error{ErrorCode::kInvalid,
                 (web ? web->source + ": " : std::string()) +
                     "cannot serve with these settings (libmicrohttpd refused them)"};
  }
  MHD_Daemon* StartDaemon(const Settings& s);
  void StopDaemon(MHD_Daemon* d);
  void RunUntilNoJobs(MHD_Daemon* d);
  void Loop();
  void ApplyReload();
  void ExpireHeads();
  MHD_Result Access(MHD_Connection* c, const char* url, const char* method,
                    std::size_t* upload_size, void** state);
  MHD_Result Begin(MHD_Connection* c, const std::string& path, Exchange& ex);
  const HttpRoute* Find(const std::string& path) const {
    for (const auto& candidate : o_.routes) {
      if (candidate.path == path) return &candidate;
    }
    return nullptr;
  }
  std::optional<HttpResponse> RefuseClientCert(MHD_Connection* c) const;
  static MHD_Result Queue(MHD_Connection* c, const HttpResponse& r);

  EventServerOptions o_;
  const int listen_fd_;
  const int port_;
  const unsigned connection_limit_;
  Settings settings_;  // of daemon_; the loop thread's
  MHD_Daemon* daemon_ = nullptr;
  // Connections still waiting for (the rest of) a request head, since when.
  std::unordered_map<MHD_Connection*, Clock::time_point> heads_;
  std::atomic<int> jobs_{0};
  std::atomic<bool> stop_{false};
  // The daemon is being stopped (a reload, or the end): no connection may be
  // suspended any more, or MHD_stop_daemon aborts the process.
  std::atomic<bool> draining_{false};
  std::mutex reload_mutex_;
  std::unique_ptr<PendingReload> pending_;
  WorkerPool workers_;
  std::thread loop_;
};

MHD_Daemon* Server::StartDaemon(const Settings& s) {
  unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&local), &len) == 0 &&
      local.ss_family == AF_INET6) {
    flags |= MHD_USE_IPv6;
  }
  MHD_RequestCompletedCallback completed =
      +[](void* cls, MHD_Connection* c, void** state, MHD_RequestTerminationCode toe) {
        auto* self = static_cast<Server*>(cls);
        delete static_cast<Exchange*>(*state);
        *state = nullptr;
        // A kept-alive connection now waits for its next request head.
        if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) self->heads_[c] = Clock::now();
      };
  MHD_NotifyConnectionCallback connection =
      +[](void* cls, MHD_Connection* c, void**, MHD_ConnectionNotificationCode code) {
        auto* self = static_cast<Server*>(cls);
        if (code == MHD_CONNECTION_NOTIFY_STARTED) {
          self->heads_[c] = Clock::now();
        } else {
          self->heads_.erase(c);
        }
      };
  // The TLS settings (each one pointer) go in an option array, as they
  // are there or not.
  std::vector<MHD_OptionItem> opts;
  if (s.tls) {
    flags |= MHD_USE_TLS;
    opts.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(s.tls->key_pem.c_str())});
    opts.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(s.tls->cert_pem.c_str())});
    opts.push_back({MHD_OPTION_HTTPS_PRIORITIES, 0, const_cast<char*>(s.priorities.c_str())});
    if (!s.tls->client_ca_pem.empty() && s.tls->client_auth != ClientAuth::kNoClientCert) {
      opts.push_back(
          {MHD_OPTION_HTTPS_MEM_TRUST, 0, const_cast<char*>(s.tls->client_ca_pem.c_str())});
    }
  }
  opts.push_back({MHD_OPTION_END, 0, nullptr});
  auto access = +[](void* cls, MHD_Connection* c, const char* url, const char* method, const char*,
                    const char*, std::size_t* upload_size, void** state) {
    return static_cast<Server*>(cls)->Access(c, url, method, upload_size, state);
  };
  return MHD_start_daemon(
      flags, 0, nullptr, nullptr, access, this, MHD_OPTION_LISTEN_SOCKET, listen_fd_,
      MHD_OPTION_CONNECTION_LIMIT, connection_limit_, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
      o_.per_client_connections, MHD_OPTION_CONNECTION_TIMEOUT,
      static_cast<unsigned>(o_.idle_timeout.count()), MHD_OPTION_NOTIFY_COMPLETED, completed, this,
      MHD_OPTION_NOTIFY_CONNECTION, connection, this, MHD_OPTION_ARRAY, opts.data(),
      MHD_OPTION_END);
}

// Jobs on the workers hold suspended connections of the daemon: it is run
// until they are resumed, since a daemon may not stop with any suspended.
void Server::RunUntilNoJobs(MHD_Daemon* d) {
  while (jobs_.load() > 0) MHD_run_wait(d, 50);
  MHD_run_wait(d, 0);
}

void Server::StopDaemon(MHD_Daemon* d) {
  // New requests that would go to a worker are answered at once (503) from
  // now on, so that the jobs drain; a job's connection, once resumed, needs
  // one more run to leave the suspended list.
  draining_ = true;
  do {
    RunUntilNoJobs(d);
    MHD_run_wait(d, 0);
  } while (jobs_.load() > 0);
  MHD_quiesce_daemon(d);  // the listening socket is ours: MHD must not close it
  MHD_stop_daemon(d);
  heads_.clear();
  draining_ = false;
}

void Server::Loop() {
  while (!stop_.load()) {
    ApplyReload();
    // MHD_NO: an error (out of descriptors, say) that did not wait.
    if (MHD_run_wait(daemon_, 250) != MHD_YES)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ExpireHeads();
  }
  std::lock_guard lock(reload_mutex_);
  if (pending_) pending_->done.set_value(Error{ErrorCode::kUnavailable, "the agent is stopping"});
  pending_.reset();
}

// Closes connections whose request head is overdue. shutdown(), not
// close(): MHD still owns the descriptor, sees the end of the stream and
// cleans the connection up itself (which removes it from heads_).
void Server::ExpireHeads() {
  const auto now = Clock::now();
  for (auto it = heads_.begin(); it != heads_.end();) {
    if (now - it->second < o_.head_deadline) {
      ++it;
      continue;
    }
    if (const MHD_ConnectionInfo* info =
            MHD_get_connection_info(it->first, MHD_CONNECTION_INFO_CONNECTION_FD)) {
      shutdown(info->connect_fd, SHUT_RDWR);
    }
    it = heads_.erase(it);
  }
}

Status Server::Reload(WebConfig config) {
  std::future<Status> done;
  {
    std::lock_guard lock(reload_mutex_);
    if (stop_.load()) return Error{ErrorCode::kUnavailable, "the agent is stopping"};
    pending_ = std::make_unique<PendingReload>();
    pending_->config = std::move(config);
    done = pending_->done.get_future();
  }
  if (done.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    return Error{ErrorCode::kTimeout,
                 "web config reload: the HTTP server did not take it within 60 s"};
  }
  return done.get();
}

void Server::ApplyReload() {
  std::unique_ptr<PendingReload> p;
  {
    std::lock_guard lock(reload_mutex_);
    p = std::move(pending_);
  }
  if (!p) return;
  Settings next = SettingsFrom(p->config);
  MHD_Daemon* fresh = StartDaemon(next);
  if (!fresh) return p->done.set_value(StartFailed(p->config));
  StopDaemon(daemon_);
  daemon_ = fresh;
  settings_ = std::move(next);
  p->done.set_value(OkStatus());
}

MHD_Result Server::Access(MHD_Connection* c, const char* url, const char* method,
                          std::size_t* upload_size, void** state) {
  auto* ex = static_cast<Exchange*>(*state);
  const std::string verb = method ? method : "";
  if (ex == nullptr) {
    // The head is complete: this is the first call for the request.
    heads_.erase(c);
    ex = new Exchange;
    *state = ex;
    // A request that is not GET or HEAD, or that comes with a body, is
    // answered at once, which makes MHD close the connection after it:
    // no body is read (nor trickled in). Anything else is answered on the
    // next call, so that the connection can be kept alive.
    const bool body = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding") || [c] {
      const char* n = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
      return n != nullptr && std::string_view(n) != "0";
    }();
    const HttpRoute* route = Find(url ? url : "");
    const bool post = route != nullptr && route->post;
    if (post ? verb != "POST" : verb != "GET" && verb != "HEAD") {
      HttpResponse r = TextResponse(405, post ? "only POST" : "only GET and HEAD");
      r.headers.emplace_back("Allow", post ? "POST" : "GET, HEAD");
      return Queue(c, r);
    }
    if (body) {
      return Queue(c, TextResponse(400, post ? "no body: the parameters go in the query string"
                                             : "a GET request carries no body"));
    }
    ex->method = verb;
    return MHD_YES;
  }
  if (*upload_size != 0) {
    *upload_size = 0;  // not reached: requests with a body are answered at once
    return MHD_YES;
  }
  if (!ex->started) {
    ex->started = true;
    return Begin(c, url ? url : "", *ex);
  }
  if (ex->ready.load()) return Queue(c, ex->response);
  return MHD_YES;
}

std::optional<HttpResponse> Server::RefuseClientCert(MHD_Connection* c) const {
  if (!settings_.tls) return std::nullopt;
  const ClientAuth mode = settings_.tls->client_auth;
  if (mode == ClientAuth::kNoClientCert || mode == ClientAuth::kRequestClientCert)
    return std::nullopt;
  const MHD_ConnectionInfo* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
  if (info == nullptr) return TextResponse(403, "a client certificate is required");
  auto session = static_cast<gnutls_session_t>(info->tls_session);
  unsigned count = 0;
  const bool given = gnutls_certificate_get_peers(session, &count) != nullptr && count > 0;
  if (!given) {
    if (mode == ClientAuth::kVerifyClientCertIfGiven) return std::nullopt;
    return TextResponse(403, "a client certificate is required");
  }
  if (mode == ClientAuth::kRequireAnyClientCert) return std::nullopt;
  unsigned status = 0;
  if (gnutls_certificate_verify_peers2(session, &status) != GNUTLS_E_SUCCESS || status != 0) {
    return TextResponse(403, "the client certificate is not signed by client_ca_file");
  }
  return std::nullopt;
}

MHD_Result Server::Begin(MHD_Connection* c, const std::string& path, Exchange& ex) {
  const HttpRoute* route = Find(path);
  if (route == nullptr) return Queue(c, TextResponse(404, "no such path: " + path));
  // /healthz (public) answers without credentials, a client certificate
  // included: the kubelet's HTTPS probe presents none.
  if (!route->public_) {
    if (auto refused = RefuseClientCert(c)) return Queue(c, *refused);
  }

  std::shared_ptr<BasicAuthUsers> users = route->public_ ? nullptr : settings_.users;
  std::string user;
  std::string password;
  bool need_bcrypt = false;
  if (users) {
    char* pass = nullptr;
    char* name = MHD_basic_auth_get_username_password(c, &pass);
    const bool given = name != nullptr;
    if (given) user = name;
    if (pass != nullptr) password = pass;
    MHD_free(name);
    MHD_free(pass);
    need_bcrypt = given && !users->KnownGood(user, password);
    if (!given) {
      HttpResponse r = TextResponse(401, "authentication required");
      r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"gpudoctor\"");
      return Queue(c, r);
    }
  }

  HttpRequest req;
  req.path = path;
  req.method = ex.method;
  req.user = user;
  MHD_get_connection_values_n(
      c, MHD_GET_ARGUMENT_KIND,
      +[](void* cls, MHD_ValueKind, const char* key, std::size_t key_size, const char* value,
          std::size_t value_size) {
        static_cast<HttpRequest*>(cls)->params.emplace_back(
            std::string(key, key_size), value ? std::string(value, value_size) : std::string());
        return MHD_YES;
      },
      &req);
  if (const char* v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept")) req.accept = v;
  if (const char* v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding")) {
    req.accept_encoding = v;
  }

  if (!route->slow && !need_bcrypt) return Queue(c, route->handler(req));
  if (draining_.load()) return Queue(c, TextResponse(503, "the server is restarting: try again"));
  // Off the event loop: the job answers through the Exchange and resumes
  // the connection, after which MHD calls Access again to queue it.
  ++jobs_;
  MHD_suspend_connection(c);
  auto job = [this, c, &ex, route, users, user, password, need_bcrypt, req = std::move(req)] {
    if (need_bcrypt && !users->Verify(user, password)) {
      ex.response = TextResponse(401, "authentication required");
      ex.response.headers.emplace_back("WWW-Authenticate", "Basic realm=\"gpudoctor\"");
    } else {
      ex.response = route->handler(req);
    }
    ex.ready = true;
    MHD_resume_connection(c);
    --jobs_;
  };
  if (!workers_.Post(job)) {
    MHD_resume_connection(c);
    --jobs_;
    ex.response = TextResponse(503, "busy: too many requests waiting");
    ex.ready = true;
  }
  return MHD_YES;
}

MHD_Result Server::Queue(MHD_Connection* c, const HttpResponse& r) {
  auto* holder = new std::shared_ptr<const std::string>(
      r.body ? r.body : std::make_shared<const std::string>());
  MHD_Response* response = MHD_create_response_from_buffer_with_free_callback_cls(
      (*holder)->size(), const_cast<char*>((*holder)->data()),
      +[](void* p) { delete static_cast<std::shared_ptr<const std::string>*>(p); }, holder);
  if (response == nullptr) {
    delete holder;
    return MHD_NO;
  }
  MHD_add_response_header(response, "Content-Type", r.content_type.c_str());
  for (const auto& [name, value] : r.headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  const MHD_Result queued = MHD_queue_response(c, static_cast<unsigned>(r.status), response);
  MHD_destroy_response(response);
  return queued;
}

}  // namespace event_server

Result<std::unique_ptr<EventServer>> EventServer::Start(EventServerOptions options) {
  auto fd = event_server::Listen(options.listen);
  if (!fd) return fd.error();
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  int port = options.listen.port;
  if (getsockname(*fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
    if (local.ss_family == AF_INET) port = ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
    if (local.ss_family == AF_INET6)
      port = ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
  }
  auto server = std::make_unique<event_server::Server>(std::move(options), *fd, port);
  if (auto begun = server->Begin(); !begun) return begun.error();
  return std::unique_ptr<EventServer>(std::move(server));
}

}  // namespace gpudoctor
