#include "facts/network.h"

namespace gpudoctor {

const char* PingMethodName(PingMethod method) {
  switch (method) {
    case PingMethod::kNone:
      return "none";
    case PingMethod::kIcmpDatagram:
      return "icmp_datagram";
    case PingMethod::kIcmpRaw:
      return "icmp_raw";
    case PingMethod::kTcpConnect:
      return "tcp_connect";
  }
  return "none";
}

std::optional<std::uint64_t> RdmaPort::Counter(std::string_view name) const {
  for (const RdmaCounter& c : counters) {
    if (c.name == name) return c.value;
  }
  return std::nullopt;
}

std::string RdmaPortLabel(const RdmaDevice& device, const RdmaPort& port) {
  return device.name + " port " + std::to_string(port.port);
}

}  // namespace gpudoctor
