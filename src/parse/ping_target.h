// Pure parser of a `--ping` target: "HOST", "HOST:PORT", "[V6]:PORT" or a
// bare IPv6 address. A port asks for TCP connect timing instead of ICMP.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "facts/network.h"

namespace gpudoctor {

// Error (kInvalid) for an empty host, an unclosed '[', or a port that is not
// 1..65535. "::1" (several colons, no brackets) is a host without a port.
Result<PingTarget> ParsePingTarget(std::string_view text);

}  // namespace gpudoctor
