// TCP connect probes (see ping_probe.h).
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "collect/ping_probe.h"

namespace gpudoctor::ping_detail {

Result<std::optional<double>> TcpProbe(const Address& to, std::chrono::milliseconds timeout,
                                       bool* refused) {
  using Clock = std::chrono::steady_clock;
  *refused = false;
  int fd = ::socket(to.family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return ErrnoError(errno, "opening TCP socket");
  const auto start = Clock::now();
  auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&to.storage), to.length);
  int err = rc == 0 ? 0 : errno;
  if (err == EINPROGRESS) {
    const auto deadline = start + timeout;
    while (true) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        ::close(fd);
        return std::optional<double>();
      }
      pollfd pfd{fd, POLLOUT, 0};
      int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) {
        err = errno;
        ::close(fd);
        return ErrnoError(err, "waiting for TCP connect");
      }
      if (ready == 0) {
        ::close(fd);
        return std::optional<double>();
      }
      socklen_t len = sizeof err;
      if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
      break;
    }
  }
  const double ms = elapsed_ms();
  ::close(fd);
  if (err == 0) return std::optional<double>(ms);
  if (err == ECONNREFUSED) {
    *refused = true;
    return std::optional<double>(ms);
  }
  if (err == ETIMEDOUT) return std::optional<double>();
  return ErrnoError(err, "TCP connect");
}

}  // namespace gpudoctor::ping_detail
