// A Prometheus that is not: an HTTP server on loopback that answers every
// query with one kind of hostility (an endless answer, a 1 GiB one, a byte
// every second, no answer at all, the wrong JSON types, a million series),
// to show that fleet and report --prometheus give up in one line, within
// their timeout, without filling the memory. Stopped (its connections shut)
// when destroyed.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gpudoctor::test {

enum class Hostility {
  kEndless,     // 200, chunked, JSON-looking bytes without end
  kHugeLength,  // 200, Content-Length 1 GiB, sent as fast as read
  kTrickle,     // 200, Content-Length 1000, one byte a second
  kHung,        // reads the query, never answers
  kWrongTypes,  // the API's shape with the wrong JSON types
  kManySeries,  // a vector of 1,000,000 series (about 90 MB)
};

const char* HostilityName(Hostility h);

class HostilePrometheus {
 public:
  explicit HostilePrometheus(Hostility how);
  ~HostilePrometheus();
  HostilePrometheus(const HostilePrometheus&) = delete;
  HostilePrometheus& operator=(const HostilePrometheus&) = delete;

  bool ok() const { return listen_fd_ >= 0; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int queries() const { return queries_.load(); }

 private:
  void Accept();
  void Serve(int fd);

  Hostility how_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> queries_{0};
  std::mutex mutex_;
  std::vector<int> connections_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace gpudoctor::test
