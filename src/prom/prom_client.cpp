#include "prom/prom_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/httplib_config.h"

namespace gpudoctor {
namespace {

Error PromInvalid(std::string message) { return Error{ErrorCode::kInvalid, std::move(message)}; }

// The first line of a small credentials file, without trailing spaces.
Result<std::string> ReadSecretLine(const std::string& path, const std::string& option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return PromInvalid(option + " " + path + ": cannot be read");
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.pop_back();
  }
  if (line.empty()) return PromInvalid(option + " " + path + ": the file is empty");
  if (line.size() > 8192) return PromInvalid(option + " " + path + ": longer than 8 KiB");
  return line;
}

std::string FormEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size() * 3 / 2);
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string UnixSeconds(WallTime t) {
  return fmt::format("{:.3f}", std::chrono::duration<double>(t.time_since_epoch()).count());
}

// The first line of an error body, bounded, for a one-line message.
std::string BodyLine(const std::string& body) {
  std::string line = body.substr(0, body.find('\n'));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

std::string Short(const std::string& expr) {
  std::string s = expr.size() > 80 ? expr.substr(0, 77) + "..." : expr;
  for (char& c : s) {
    if (c == '\n') c = ' ';
  }
  return s;
}

}  // namespace

Result<std::unique_ptr<PromClient>> PromClient::Open(const PromOptions& options) {
  std::unique_ptr<PromClient> c(new PromClient());
  c->options_ = options;
  const std::string& url = options.url;
  const bool https = url.starts_with("https://");
  if (!https && !url.starts_with("http://")) {
    return PromInvalid("--prometheus " + url + ": not an http:// or https:// URL");
  }
  const std::size_t host_at = https ? 8 : 7;
  std::size_t path_at = url.find('/', host_at);
  std::string host = url.substr(host_at, path_at == std::string::npos ? std::string::npos
                                                                      : path_at - host_at);
  if (host.empty() || host.find_first_of("?# @") != std::string::npos) {
    return PromInvalid("--prometheus " + url + ": no host in the URL");
  }
  c->base_url_ = url.substr(0, host_at) + host;
  if (path_at != std::string::npos) {
    c->path_prefix_ = url.substr(path_at);
    while (!c->path_prefix_.empty() && c->path_prefix_.back() == '/') c->path_prefix_.pop_back();
  }
  if (!options.bearer_token_file.empty() && !options.basic_auth_file.empty()) {
    return PromInvalid("--prometheus-token-file and --prometheus-basic-auth-file: give one");
  }
  if (!options.bearer_token_file.empty()) {
    auto t = ReadSecretLine(options.bearer_token_file, "--prometheus-token-file");
    if (!t) return t.error();
    c->bearer_token_ = *t;
  }
  if (!options.basic_auth_file.empty()) {
    auto t = ReadSecretLine(options.basic_auth_file, "--prometheus-basic-auth-file");
    if (!t) return t.error();
    const std::size_t colon = t->find(':');
    if (colon == std::string::npos) {
      return PromInvalid("--prometheus-basic-auth-file " + options.basic_auth_file +
                         ": expected one line user:password");
    }
    c->basic_user_ = t->substr(0, colon);
    c->basic_password_ = t->substr(colon + 1);
  }
  if (!options.ca_file.empty()) {
    std::ifstream ca(options.ca_file);
    if (!ca) return PromInvalid("--prometheus-ca-file " + options.ca_file + ": cannot be read");
    if (!https) return PromInvalid("--prometheus-ca-file needs an https:// URL");
  }
  return c;
}

Result<PromAnswer> PromClient::Post(const std::string& path, const std::string& form,
                                    const std::string& what) const {
  {
    // A server that has run a query past the timeout or the cap is not
    // asked again in this command: queries not yet sent end at once, so
    // that a hostile or stuck server costs one timeout, not one per query.
    std::lock_guard<std::mutex> lock(gave_up_mutex_);
    if (gave_up_) {
      return Error{gave_up_->code, gave_up_->message + " (so " + what + " was not sent)"};
    }
  }
  ++queries_sent_;
  httplib::Client client(base_url_);
  const auto timeout = options_.timeout;
  client.set_connection_timeout(std::chrono::duration_cast<std::chrono::seconds>(timeout).count(),
                                static_cast<time_t>((timeout.count() % 1000) * 1000));
  client.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(timeout).count(),
                          static_cast<time_t>((timeout.count() % 1000) * 1000));
  client.set_write_timeout(std::chrono::duration_cast<std::chrono::seconds>(timeout).count(),
                           static_cast<time_t>((timeout.count() % 1000) * 1000));
  if (!options_.ca_file.empty()) client.set_ca_cert_path(options_.ca_file.c_str());
  if (!bearer_token_.empty()) client.set_bearer_token_auth(bearer_token_);
  if (!basic_user_.empty()) client.set_basic_auth(basic_user_, basic_password_);
  client.set_decompress(true);
  httplib::Request req;
  req.method = "POST";
  req.path = path_prefix_ + path;
  req.headers = {{"Accept-Encoding", "gzip"}, {"Content-Type", "application/x-www-form-urlencoded"}};
  req.body = form;
  // The answer is kept only up to max_answer_bytes (after decompression, so
  // a gzip bomb is cut too), and the whole query, body included, ends at the
  // deadline: a server that sends a byte every few seconds, or an endless
  // answer, is given up on as one that never answers is.
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + timeout;
  std::string body;
  bool too_large = false;
  std::atomic<bool> late{false};
  req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
    if (std::chrono::steady_clock::now() >= deadline) {
      late = true;
      return false;
    }
    if (body.size() + n > options_.max_answer_bytes) {
      too_large = true;
      return false;
    }
    // Grown by doubling, but never past the cap: four answers in flight
    // hold at most four caps.
    if (body.capacity() < body.size() + n) {
      body.reserve(std::min(options_.max_answer_bytes,
                            std::max(body.size() + n, body.capacity() * 2)));
    }
    body.append(data, n);
    return true;
  };
  // The watchdog: at the deadline it shuts the connection, which ends any
  // read in progress (headers that trickle, a server that never answers).
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(m);
    if (!cv.wait_until(lock, deadline, [&] { return done; })) {
      late = true;
      client.stop();
    }
  });
  httplib::Response res;
  httplib::Error sent = httplib::Error::Success;
  const bool ok = client.send(req, res, sent);
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_one();
  watchdog.join();
  if (std::getenv("GPUDOCTOR_PROM_TRACE") != nullptr) {
    // For finding the slow query of a large fleet: time and size per query.
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr, "prometheus: %.3f s %zu bytes %s\n", s, body.size(), what.c_str());
  }
  const std::string where = "prometheus " + base_url_ + path_prefix_;
  if (too_large || late) {
    Error e = too_large
                  ? Error{ErrorCode::kIo,
                          where + ": " + what + ": the answer is larger than " +
                              std::to_string(options_.max_answer_bytes >> 20) +
                              " MiB (--prometheus-max-mb); narrow what is asked (fewer nodes, a "
                              "shorter window) or raise the cap"}
                  : Error{ErrorCode::kTimeout, where + ": " + what +
                                                   ": no complete answer within " +
                                                   std::to_string(timeout.count()) +
                                                   " ms (--prometheus-timeout)"};
    std::lock_guard<std::mutex> lock(gave_up_mutex_);
    if (!gave_up_) gave_up_ = e;
    return e;
  }
  res.body = std::move(body);
  const httplib::Response* r = ok ? &res : nullptr;
  if (!r) {
    const auto err = sent;
    std::string why;
    switch (err) {
      case httplib::Error::Connection:
        why = "cannot connect (is it running, and is the URL right?)";
        break;
      case httplib::Error::ConnectionTimeout:
        why = "no connection within " + std::to_string(timeout.count()) + " ms";
        break;
      case httplib::Error::Read:
        why = "no complete answer within " + std::to_string(timeout.count()) +
              " ms (--prometheus-timeout), or the connection closed";
        break;
      case httplib::Error::SSLConnection:
      case httplib::Error::SSLServerVerification:
        why = "TLS failed: " + httplib::to_string(err) + " (--prometheus-ca-file?)";
        break;
      default:
        why = httplib::to_string(err);
    }
    return Error{err == httplib::Error::Connection ? ErrorCode::kUnavailable : ErrorCode::kIo,
                 where + ": " + what + ": " + why};
  }
  if (r->status == 401 || r->status == 403) {
    return Error{ErrorCode::kPermission, where + ": HTTP " + std::to_string(r->status) +
                                             " (check the token or basic auth): " +
                                             BodyLine(r->body)};
  }
  // 400 and 422 carry the API's error JSON (a bad query); others may not.
  if (r->status != 200 && r->status != 400 && r->status != 422) {
    return Error{r->status >= 500 ? ErrorCode::kUnavailable : ErrorCode::kIo,
                 where + ": " + what + ": HTTP " + std::to_string(r->status) + ": " +
                     BodyLine(r->body)};
  }
  auto answer = ParsePromAnswer(r->body, what);
  if (!answer) return Error{answer.error().code, where + ": " + answer.error().message};
  return answer;
}

Result<PromAnswer> PromClient::Query(const std::string& expr, WallTime at) const {
  return Post("/api/v1/query", "query=" + FormEscape(expr) + "&time=" + UnixSeconds(at),
              "query '" + Short(expr) + "'");
}

WallTime FirstPointAtOrBefore(WallTime from, WallTime to, std::chrono::seconds step) {
  const auto span_s = std::chrono::duration_cast<std::chrono::seconds>(to - from).count();
  return to - step * ((span_s + step.count() - 1) / step.count());
}

Result<PromAnswer> PromClient::QueryRange(const std::string& expr, WallTime from, WallTime to,
                                          std::chrono::seconds step) const {
  return Post("/api/v1/query_range",
              "query=" + FormEscape(expr) + "&start=" + UnixSeconds(from) + "&end=" +
                  UnixSeconds(to) + "&step=" + std::to_string(std::max<long>(1, step.count())),
              "range query '" + Short(expr) + "'");
}

}  // namespace gpudoctor
