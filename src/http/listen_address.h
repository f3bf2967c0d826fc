// The agent's --listen value: "HOST:PORT", "[IPV6]:PORT" or ":PORT" (every
// IPv4 address, as Prometheus exporters read it). A parser of
// outside input with no HTTP server attached, so that it can be fuzzed on
// its own.
#pragma once

#include <string>

#include "core/result.h"

namespace gpudoctor {

struct ListenAddress {
  std::string host;  // "127.0.0.1", "::1", "0.0.0.0"
  int port = 0;
};

// Errors are one line, kInvalid, and name the value.
Result<ListenAddress> ParseListenAddress(const std::string& text);

}  // namespace gpudoctor
