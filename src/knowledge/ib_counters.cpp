#include "knowledge/ib_counters.h"

#include <array>

#include "knowledge/hbm_peaks.h"

namespace gpudoctor {
namespace {
namespace ib_counters_table {

struct IbCounterRow {
  std::string_view name;
  IbCounterInfo info;
};

constexpr auto kFatal = IbCounterClass::kFatal;
constexpr auto kWarn = IbCounterClass::kWarning;
constexpr auto kOther = IbCounterClass::kOther;

// Widths: IBTA spec vol. 1, the PortCounters attribute (the fields the
// kernel's drivers/infiniband/core/sysfs.c exposes under counters/).
// Classes: NVIDIA's InfiniBand troubleshooting order of severity (link
// downed, buffer overrun, link integrity first; symbol errors and receive
// errors last) and mlx5's RoCE retry counters of hw_counters/ (retries
// exhausted is fatal to the queue pair; slow restarts and ack timeouts are
// congestion or loss that slows NCCL).
constexpr std::array<IbCounterRow, 19> kRows = {{
    {"link_downed", {kFatal, 8}},
    {"local_link_integrity_errors", {kFatal, 4}},
    {"excessive_buffer_overrun_errors", {kFatal, 4}},
    {"rnr_nak_retry_err", {kFatal, std::nullopt}},
    {"symbol_error", {kWarn, 16}},
    {"link_error_recovery", {kWarn, 8}},
    {"port_rcv_errors", {kWarn, 16}},
    {"port_xmit_discards", {kWarn, 16}},
    {"roce_slow_restart", {kWarn, std::nullopt}},
    {"local_ack_timeout_err", {kWarn, std::nullopt}},
    {"port_rcv_remote_physical_errors", {kOther, 16}},
    {"port_rcv_switch_relay_errors", {kOther, 16}},
    {"port_xmit_constraint_errors", {kOther, 8}},
    {"port_rcv_constraint_errors", {kOther, 8}},
    {"VL15_dropped", {kOther, 16}},
    {"port_xmit_wait", {kOther, 32}},
    {"port_xmit_data", {kOther, std::nullopt}},  // extended (64-bit) counters on mlx5
    {"port_rcv_data", {kOther, std::nullopt}},
    {"port_xmit_packets", {kOther, std::nullopt}},
}};

}  // namespace ib_counters_table
}  // namespace

IbCounterInfo FindIbCounter(std::string_view name) {
  for (const auto& row : ib_counters_table::kRows) {
    if (row.name == name) return row.info;
  }
  return IbCounterInfo{};
}

bool IbCounterSaturated(std::string_view name, std::uint64_t value) {
  auto width = FindIbCounter(name).width_bits;
  if (!width || *width >= 64) return false;
  return value == (std::uint64_t{1} << *width) - 1;
}

std::optional<IbPlatformPorts> DefaultIbPorts(std::string_view gpu_name, std::size_t gpu_count) {
  if (gpu_count != 8) return std::nullopt;
  auto peak = FindHbmPeak(gpu_name);
  if (!peak) return std::nullopt;
  // The HBM table names the SXM parts "H100 SXM", "H200" and "B200"; the
  // PCIe and NVL cards are other rows (an "H200 NVL" matches "H200", so the
  // name is checked for NVL too).
  if (gpu_name.find("NVL") != std::string_view::npos) return std::nullopt;
  if (peak->model == "H100 SXM") {
    return IbPlatformPorts{"HGX H100", 8, 400,
                           "NVIDIA DGX H100 datasheet: 8x single-port ConnectX-7, up to 400 Gb/s "
                           "InfiniBand each"};
  }
  if (peak->model == "H200") {
    return IbPlatformPorts{"HGX H200", 8, 400,
                           "NVIDIA DGX H200 datasheet: 8x single-port ConnectX-7, up to 400 Gb/s "
                           "InfiniBand each"};
  }
  if (peak->model == "B200") {
    return IbPlatformPorts{"HGX B200", 8, 400,
                           "NVIDIA DGX B200 datasheet: 8x single-port ConnectX-7, up to 400 Gb/s "
                           "InfiniBand each"};
  }
  return std::nullopt;
}

}  // namespace gpudoctor
