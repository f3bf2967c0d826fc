// Internal to ping.cpp: single probes over an already resolved address.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "collect/ping.h"
#include "core/result.h"

namespace gpudoctor::ping_detail {

struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = 0;
};

// An open ICMP socket (datagram if permitted, else raw). The Error says why
// neither could be opened; `note` says why the datagram one was not used.
struct IcmpSocket {
  int fd = -1;
  PingMethod method = PingMethod::kNone;
  std::string note;
};
Result<IcmpSocket> OpenIcmpSocket(int family);

// One echo request with `sequence`; the round-trip time in ms, std::nullopt
// on timeout, Error when sending failed.
Result<std::optional<double>> IcmpProbe(const IcmpSocket& socket, const Address& to,
                                        std::uint16_t identifier, std::uint16_t sequence,
                                        std::chrono::milliseconds timeout);

// One TCP connect; the time to connect (or to be refused, which also proves
// a round trip: *refused is set) in ms, std::nullopt on timeout, Error on
// other failures (unreachable network, ...).
Result<std::optional<double>> TcpProbe(const Address& to, std::chrono::milliseconds timeout,
                                       bool* refused);

}  // namespace gpudoctor::ping_detail
