#include "agent/agent_signals.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <thread>

namespace gpudoctor {

AgentSignals::AgentSignals() : wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

AgentSignals::~AgentSignals() {
  if (wake_fd_ >= 0) close(wake_fd_);
}

void AgentSignals::Wake() {
  if (wake_fd_ < 0) return;
  const std::uint64_t one = 1;
  const int saved = errno;  // a signal handler must leave errno as it found it
  [[maybe_unused]] const ssize_t n = write(wake_fd_, &one, sizeof one);
  errno = saved;
}

void AgentSignals::RequestStop() {
  stop_.store(true);
  Wake();
}

void AgentSignals::RequestReload() {
  reload_.store(true);
  Wake();
}

void AgentSignals::WaitUntil(std::chrono::steady_clock::time_point deadline) {
  using namespace std::chrono;
  while (!stop_.load() && !reload_.load()) {
    const auto left = deadline - steady_clock::now();
    if (left <= steady_clock::duration::zero()) return;
    if (wake_fd_ < 0) {
      std::this_thread::sleep_for(std::min<steady_clock::duration>(left, milliseconds(200)));
      continue;
    }
    pollfd p{wake_fd_, POLLIN, 0};
    // Rounded up, so that the loop does not spin through the last
    // fraction of a millisecond.
    const auto ms = duration_cast<milliseconds>(left + microseconds(999)).count();
    if (poll(&p, 1, static_cast<int>(std::min<long long>(ms, 60000))) > 0) {
      std::uint64_t count = 0;
      [[maybe_unused]] const ssize_t n = read(wake_fd_, &count, sizeof count);
    }
  }
}

}  // namespace gpudoctor
