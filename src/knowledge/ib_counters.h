// What gpudoctor knows about InfiniBand port counters and the ports a
// standard GPU platform has: each counter's width (so that a counter pinned at
// its maximum is told apart from one that stopped rising), which counters
// are fatal when they rise and which only when they keep rising, and the
// compute ports NVIDIA's 8-GPU platforms ship with. Data, not logic; every
// figure names its source.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpudoctor {

enum class IbCounterClass {
  kOther,    // traffic and informational counters: never judged
  kFatal,    // any rise is a fault (link went down, integrity lost, retries exhausted)
  kWarning,  // a sustained rate is a fault (bit errors, recoveries, drops, RoCE slow restarts)
};

struct IbCounterInfo {
  IbCounterClass kind = IbCounterClass::kOther;
  // Width of the PortCounters field (IBTA spec vol. 1, PortCounters
  // attribute, table "PortCounters"; the Linux kernel's
  // drivers/infiniband/core/sysfs.c reads the same fields); nullopt for the
  // 64-bit driver counters of hw_counters/ and the extended data counters.
  std::optional<unsigned> width_bits;
};

// The row for a counter file name ("symbol_error", "rnr_nak_retry_err");
// kOther and no width for a name the table does not know.
IbCounterInfo FindIbCounter(std::string_view name);

// True when `value` is the largest value the counter's width holds
// (2^width - 1): the counter stopped counting, its rate is unknown.
bool IbCounterSaturated(std::string_view name, std::uint64_t value);

// The InfiniBand compute ports a standard 8-GPU platform ships with.
struct IbPlatformPorts {
  std::string_view platform;  // "HGX H100"
  unsigned ports = 0;
  double rate_gbps = 0;
  std::string_view source;  // the NVIDIA document the figure is from
};

// Defaults by GPU model (the NVML name of the node's GPUs) and count: 8 x 400
// Gb/s on 8-GPU HGX H100, H200 and B200 (SXM) nodes; nullopt elsewhere
// (PCIe and NVL cards, other counts), where ports are compared with their peers.
std::optional<IbPlatformPorts> DefaultIbPorts(std::string_view gpu_name, std::size_t gpu_count);

// The IBTA's link bit-error-rate bound expressed as symbol errors an hour.
// The InfiniBand specification requires fewer than one bit error per 10^12
// bits (NVIDIA DGX SuperPOD cabling guide, "Bit Error Rate"); at a 4X QDR
// link's 32 Gb/s of data that is 32e9 x 3600 / 1e12 = 115 errors an hour,
// the "about 120 an hour" InfiniBand operators use as the symbol-error bound.
// Faster links (HDR, NDR) correct errors with FEC, so a symbol error there
// is already one the FEC could not hide: the bound is generous for them.
inline constexpr double kIbSymbolErrorsPerHourBound = 120;

}  // namespace gpudoctor
