// ICMP echo probes (see ping_probe.h).
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "collect/ping_probe.h"

namespace gpudoctor::ping_detail {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint8_t kEchoRequestV4 = 8, kEchoReplyV4 = 0;
constexpr std::uint8_t kEchoRequestV6 = 128, kEchoReplyV6 = 129;
constexpr std::size_t kPayload = 16;

std::uint16_t Checksum(const std::uint8_t* data, std::size_t size) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < size; i += 2)
    sum += static_cast<std::uint32_t>(data[i] << 8 | data[i + 1]);
  if (size % 2) sum += static_cast<std::uint32_t>(data[size - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

void Put16(std::uint8_t* at, std::uint16_t v) {
  at[0] = static_cast<std::uint8_t>(v >> 8);
  at[1] = static_cast<std::uint8_t>(v);
}

std::uint16_t Get16(const std::uint8_t* at) {
  return static_cast<std::uint16_t>(at[0] << 8 | at[1]);
}

// Whether `packet` (as received) is the reply to our request.
bool IsOurReply(const IcmpSocket& s, int family, const std::uint8_t* packet, std::size_t size,
                std::uint16_t identifier, std::uint16_t sequence) {
  // A raw IPv4 socket hands over the IP header too; the others do not.
  if (family == AF_INET && s.method == PingMethod::kIcmpRaw) {
    if (size < 20) return false;
    const std::size_t header = static_cast<std::size_t>(packet[0] & 0x0f) * 4;
    if (size < header) return false;
    packet += header;
    size -= header;
  }
  if (size < 8) return false;
  const std::uint8_t reply = family == AF_INET ? kEchoReplyV4 : kEchoReplyV6;
  if (packet[0] != reply || packet[1] != 0) return false;
  // Datagram sockets: the kernel sets the identifier and filters replies.
  if (s.method == PingMethod::kIcmpRaw && Get16(packet + 4) != identifier) return false;
  return Get16(packet + 6) == sequence;
}

}  // namespace

Result<IcmpSocket> OpenIcmpSocket(int family) {
  const int protocol =
      family == AF_INET ? static_cast<int>(IPPROTO_ICMP) : static_cast<int>(IPPROTO_ICMPV6);
  IcmpSocket s;
  s.fd = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, protocol);
  if (s.fd >= 0) {
    s.method = PingMethod::kIcmpDatagram;
    return s;
  }
  const int dgram_errno = errno;
  s.note = std::string("ICMP datagram socket not permitted (") + std::strerror(dgram_errno) +
           "; see net.ipv4.ping_group_range)";
  s.fd = ::socket(family, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, protocol);
  if (s.fd >= 0) {
    s.method = PingMethod::kIcmpRaw;
    return s;
  }
  const int raw_errno = errno;
  return Error{
      raw_errno == EPERM || raw_errno == EACCES ? ErrorCode::kPermission : ErrorCode::kIo,
      s.note + "; raw ICMP socket: " + std::strerror(raw_errno) + " (needs root or CAP_NET_RAW)"};
}

Result<std::optional<double>> IcmpProbe(const IcmpSocket& s, const Address& to,
                                        std::uint16_t identifier, std::uint16_t sequence,
                                        std::chrono::milliseconds timeout) {
  std::uint8_t request[8 + kPayload] = {};
  request[0] = to.family == AF_INET ? kEchoRequestV4 : kEchoRequestV6;
  Put16(request + 4, identifier);
  Put16(request + 6, sequence);
  for (std::size_t i = 0; i < kPayload; ++i) request[8 + i] = static_cast<std::uint8_t>('g' + i);
  // The kernel fills the ICMPv6 checksum itself; for IPv4 it is ours.
  if (to.family == AF_INET) Put16(request + 2, Checksum(request, sizeof request));

  const auto start = Clock::now();
  if (::sendto(s.fd, request, sizeof request, 0, reinterpret_cast<const sockaddr*>(&to.storage),
               to.length) < 0) {
    return ErrnoError(errno, "sending ICMP echo");
  }
  const auto deadline = start + timeout;
  std::uint8_t buffer[1500];
  while (true) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::optional<double>();
    pollfd pfd{s.fd, POLLIN, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return ErrnoError(errno, "waiting for ICMP echo reply");
    if (ready == 0) return std::optional<double>();
    ssize_t n = ::recv(s.fd, buffer, sizeof buffer, 0);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      // An ICMP error (host unreachable) surfaces here on datagram sockets:
      // the probe is lost, not the whole run.
      return std::optional<double>();
    }
    if (IsOurReply(s, to.family, buffer, static_cast<std::size_t>(n), identifier, sequence)) {
      return std::optional<double>(
          std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
  }
}

}  // namespace gpudoctor::ping_detail
