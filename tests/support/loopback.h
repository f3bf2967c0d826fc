// Loopback sockets for HTTP tests: a free port to give the agent, and raw
// client connections that send exactly the bytes a test wants (partial
// requests, oversized lines) which an HTTP client library would not.
#pragma once

#include <string>

namespace gpudoctor::test {

// A TCP socket bound to a free port on 127.0.0.1 (port 0 when none could
// be bound); the port stays taken until Close() or destruction.
class BoundPort {
 public:
  BoundPort();
  ~BoundPort() { Close(); }
  BoundPort(const BoundPort&) = delete;
  BoundPort& operator=(const BoundPort&) = delete;
  void Close();
  // Makes it a listening socket, as a server holding the port would be.
  bool Listen();
  int port = 0;

 private:
  int fd_ = -1;
};

// A TCP port on 127.0.0.1 that was free a moment ago; 0 when none.
int FreeLoopbackPort();

// One raw TCP connection to 127.0.0.1:port; closed when destroyed.
class RawConnection {
 public:
  explicit RawConnection(int port);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  // Sends all of `bytes`; false when the peer closed or reset.
  bool Send(const std::string& bytes);
  // What arrives until the peer closes, `limit` bytes, or `timeout_ms`
  // passes without a byte.
  std::string Receive(std::size_t limit, int timeout_ms);
  // True once a Receive saw the peer close the connection.
  bool closed_by_peer() const { return closed_by_peer_; }

 private:
  int fd_ = -1;
  bool closed_by_peer_ = false;
};

}  // namespace gpudoctor::test
