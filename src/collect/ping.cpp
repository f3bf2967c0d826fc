#include "collect/ping.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

#include "collect/ping_probe.h"

namespace gpudoctor {

using ping_detail::Address;

PingStats SummarizeProbes(unsigned sent, const std::vector<double>& rtts_ms) {
  PingStats s;
  s.sent = sent;
  s.received = static_cast<unsigned>(rtts_ms.size());
  if (sent > 0) s.loss_percent = 100.0 * (sent - std::min(sent, s.received)) / sent;
  if (rtts_ms.empty()) return s;
  double lo = rtts_ms.front(), hi = rtts_ms.front(), sum = 0;
  for (double r : rtts_ms) {
    lo = std::min(lo, r);
    hi = std::max(hi, r);
    sum += r;
  }
  const double mean = sum / static_cast<double>(rtts_ms.size());
  double squares = 0;
  for (double r : rtts_ms) squares += (r - mean) * (r - mean);
  s.min_ms = lo;
  s.max_ms = hi;
  s.avg_ms = mean;
  s.stddev_ms = std::sqrt(squares / static_cast<double>(rtts_ms.size()));
  return s;
}

namespace {

using Clock = std::chrono::steady_clock;

Result<Address> Resolve(const PingTarget& target) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(target.host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    return Error{ErrorCode::kNotFound,
                 "cannot resolve '" + target.host + "': " + ::gai_strerror(rc)};
  }
  Address a;
  std::memcpy(&a.storage, found->ai_addr, found->ai_addrlen);
  a.length = found->ai_addrlen;
  a.family = found->ai_family;
  ::freeaddrinfo(found);
  if (target.port) {
    const std::uint16_t port = htons(*target.port);
    if (a.family == AF_INET) reinterpret_cast<sockaddr_in*>(&a.storage)->sin_port = port;
    if (a.family == AF_INET6) reinterpret_cast<sockaddr_in6*>(&a.storage)->sin6_port = port;
  }
  return a;
}

std::string Numeric(const Address& a) {
  char host[NI_MAXHOST] = {};
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&a.storage), a.length, host, sizeof host,
                    nullptr, 0, NI_NUMERICHOST) != 0) {
    return {};
  }
  return host;
}

std::uint16_t NextIdentifier() {
  static std::atomic<std::uint16_t> counter{0};
  return static_cast<std::uint16_t>((::getpid() & 0xffff) ^ (counter.fetch_add(1) * 0x9e37u));
}

// Runs `probe(sequence)` count times, interval apart, collecting RTTs.
template <typename Probe>
void RunProbes(const PingOptions& options, PingResult& result, Probe probe) {
  std::vector<double> rtts;
  unsigned sent = 0;
  std::string first_error;
  auto next = Clock::now();
  for (unsigned seq = 0; seq < options.count; ++seq) {
    std::this_thread::sleep_until(next);
    next = Clock::now() + options.interval;
    ++sent;
    Result<std::optional<double>> rtt = probe(static_cast<std::uint16_t>(seq + 1));
    if (!rtt.ok()) {
      if (first_error.empty()) first_error = rtt.error().message;
    } else if (rtt->has_value()) {
      rtts.push_back(**rtt);
    }
  }
  if (!first_error.empty()) result.notes.push_back("probe failed: " + first_error);
  result.stats = SummarizeProbes(sent, rtts);
}

}  // namespace

PingResult Ping(const PingTarget& target, const PingOptions& options) {
  PingResult result;
  result.target = target.text.empty() ? target.host : target.text;
  auto address = Resolve(target);
  if (!address.ok()) {
    result.why = address.error().message;
    return result;
  }
  result.address = Numeric(*address);
  if (target.port) {
    result.method = PingMethod::kTcpConnect;
    result.available = true;
    bool any_refused = false;
    RunProbes(options, result, [&](std::uint16_t) {
      bool refused = false;
      auto rtt = ping_detail::TcpProbe(*address, options.timeout, &refused);
      any_refused = any_refused || refused;
      return rtt;
    });
    if (any_refused) {
      result.notes.push_back("port " + std::to_string(*target.port) +
                             " refused connections: times are to the refusal");
    }
    return result;
  }
  auto socket = ping_detail::OpenIcmpSocket(address->family);
  if (!socket.ok()) {
    result.why = socket.error().message + "; give HOST:PORT to measure TCP connect time instead";
    return result;
  }
  result.method = socket->method;
  result.available = true;
  if (!socket->note.empty()) result.notes.push_back(socket->note);
  const std::uint16_t identifier = NextIdentifier();
  RunProbes(options, result, [&](std::uint16_t sequence) {
    return ping_detail::IcmpProbe(*socket, *address, identifier, sequence, options.timeout);
  });
  ::close(socket->fd);
  return result;
}

std::vector<PingResult> PingAll(const std::vector<PingTarget>& targets,
                                const PingOptions& options) {
  std::vector<PingResult> results(targets.size());
  std::vector<std::thread> threads;
  threads.reserve(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = Ping(targets[i], options); });
  }
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace gpudoctor
