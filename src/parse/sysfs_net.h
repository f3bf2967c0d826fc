// Pure parsers for /sys/class/net/<if>/ and /sys/class/infiniband/<dev>/
// attribute text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "facts/network.h"

namespace gpudoctor {

// /sys/class/net/<if>/speed in Mb/s; "-1", "0", empty or garbage (virtual
// devices, link down) -> std::nullopt (unknown).
std::optional<std::int64_t> ParseNetSpeedMbps(std::string_view text);

// An InfiniBand port's state or phys_state: "4: ACTIVE" -> {4, "ACTIVE"}.
std::optional<IbPortState> ParseIbPortState(std::string_view text);

// An InfiniBand port's rate: "200 Gb/sec (4X HDR)" -> 200, "2.5 Gb/sec (1X SDR)" -> 2.5.
std::optional<double> ParseIbRateGbps(std::string_view text);

}  // namespace gpudoctor
