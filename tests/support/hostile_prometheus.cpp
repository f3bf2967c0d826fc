#include "support/hostile_prometheus.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace gpudoctor::test {
namespace hostile_prometheus_local {

bool SendAll(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads the request's head (and whatever of its body came with it).
bool ReadRequest(int fd) {
  std::string got;
  char buf[4096];
  while (got.find("\r\n\r\n") == std::string::npos && got.size() < 65536) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) return false;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

std::string Chunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

std::string Series(int i) {
  return R"({"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","Hostname":"node)" + std::to_string(i) +
         R"(","gpu":"0"},"value":[1765000000,"45"]},)";
}

}  // namespace hostile_prometheus_local
using namespace hostile_prometheus_local;

const char* HostilityName(Hostility h) {
  switch (h) {
    case Hostility::kEndless:
      return "endless";
    case Hostility::kHugeLength:
      return "huge";
    case Hostility::kTrickle:
      return "trickle";
    case Hostility::kHung:
      return "hung";
    case Hostility::kWrongTypes:
      return "wrong_types";
    case Hostility::kManySeries:
      return "many_series";
  }
  return "?";
}

HostilePrometheus::HostilePrometheus(Hostility how) : how_(how) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
      listen(listen_fd_, 64) != 0) {
    close(listen_fd_);
    listen_fd_ = -1;
    return;
  }
  port_ = ntohs(a.sin_port);
  acceptor_ = std::thread([this] { Accept(); });
}

HostilePrometheus::~HostilePrometheus() {
  stop_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int fd : connections_) shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : threads_) t.join();
  for (int fd : connections_) close(fd);
  if (listen_fd_ >= 0) close(listen_fd_);
}

void HostilePrometheus::Accept() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    connections_.push_back(fd);
    threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void HostilePrometheus::Serve(int fd) {
  using namespace std::chrono_literals;
  if (!ReadRequest(fd)) return;
  ++queries_;
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";
  const std::string start = R"({"status":"success","data":{"resultType":"vector","result":[)";
  switch (how_) {
    case Hostility::kEndless: {
      if (!SendAll(fd, head + "Transfer-Encoding: chunked\r\n\r\n" + Chunk(start))) return;
      std::string block;
      for (int i = 0; i < 1000; ++i) block += Series(i);
      const std::string chunk = Chunk(block);
      while (!stop_ && SendAll(fd, chunk)) {
      }
      return;
    }
    case Hostility::kHugeLength: {
      if (!SendAll(fd, head + "Content-Length: 1073741824\r\n\r\n" + start)) return;
      std::string block;
      for (int i = 0; i < 1000; ++i) block += Series(i);
      while (!stop_ && SendAll(fd, block)) {
      }
      return;
    }
    case Hostility::kTrickle: {
      if (!SendAll(fd, head + "Content-Length: 1000\r\n\r\n")) return;
      while (!stop_ && SendAll(fd, "[")) std::this_thread::sleep_for(1s);
      return;
    }
    case Hostility::kHung:
      while (!stop_) std::this_thread::sleep_for(50ms);
      return;
    case Hostility::kWrongTypes: {
      const std::string body =
          R"({"status":"success","data":{"resultType":"matrix","result":)"
          R"([{"metric":["not","an","object"],"values":{"a":1}},)"
          R"({"metric":{"Hostname":7},"values":[["x",1],[1,{}]]},{"value":null}]}})";
      SendAll(fd, head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
      return;
    }
    case Hostility::kManySeries: {
      if (!SendAll(fd, head + "Transfer-Encoding: chunked\r\n\r\n" + Chunk(start))) return;
      std::string block;
      for (int i = 0; i < 1'000'000 && !stop_; ++i) {
        block += Series(i);
        if (block.size() > (1 << 16)) {
          if (!SendAll(fd, Chunk(block))) return;
          block.clear();
        }
      }
      block += Series(-1);
      block.pop_back();  // the last comma
      SendAll(fd, Chunk(block + "]}}") + Chunk(""));
      return;
    }
  }
}

}  // namespace gpudoctor::test
