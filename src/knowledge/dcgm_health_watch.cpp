#include "knowledge/dcgm_health_watch.h"

#include <array>

namespace gpudoctor {
namespace dcgm_health_watch_detail {

// dcgm-exporter's gpuHealthChecks, by their health_watch label.
constexpr std::array<std::string_view, 11> kWatches = {
    "PCIE", "NVLINK", "PMU", "MCU", "MEM", "SM", "INFOROM", "THERMAL", "POWER", "DRIVER", "ALL"};

struct Row {
  std::string_view finding_id;
  DcgmHealthIncident incident;
};

// Where DCGM's own health checks would flag the same condition. Lost GPUs
// and the Xids DCGM reports GPU-wide go under ALL, as DCGM reports them.
constexpr Row kRows[] = {
    {"pcie.replay", {"PCIE", "DCGM_FR_PCI_REPLAY_RATE"}},
    {"pcie.link_degraded", {"PCIE", "DCGM_FR_PCIE_WIDTH"}},
    {"pcie.aer", {"PCIE", "DCGM_FR_PCIE_REPLAY_VIOLATION"}},
    {"nvlink.errors", {"NVLINK", "DCGM_FR_NVLINK_ERROR_THRESHOLD"}},
    {"xid.nvlink", {"NVLINK", "DCGM_FR_NVLINK_ERROR_CRITICAL"}},
    {"ecc.uncorrectable", {"MEM", "DCGM_FR_VOLATILE_DBE_DETECTED"}},
    {"ecc.row_remap", {"MEM", "DCGM_FR_PENDING_ROW_REMAP"}},
    {"xid.memory", {"MEM", "DCGM_FR_UNCONTAINED_ERROR"}},
    {"xid.gsp", {"PMU", "DCGM_FR_XID_ERROR"}},
    {"thermal.slowdown", {"THERMAL", "DCGM_FR_CLOCK_THROTTLE_THERMAL"}},
    {"thermal.high_temperature", {"THERMAL", "DCGM_FR_TEMP_VIOLATION"}},
    {"clocks.hw_slowdown", {"THERMAL", "DCGM_FR_THERMAL_VIOLATIONS"}},
    {"power.brake", {"POWER", "DCGM_FR_CLOCK_THROTTLE_POWER"}},
    {"power.cap", {"POWER", "DCGM_FR_CLOCK_THROTTLE_POWER"}},
    {"driver.rm_init_failed", {"DRIVER", "DCGM_FR_NVML_API"}},
    {"gpu.lost", {"ALL", "DCGM_FR_FALLEN_OFF_BUS"}},
    {"xid.fallen_off_bus", {"ALL", "DCGM_FR_FALLEN_OFF_BUS"}},
    {"xid.recovery_action", {"ALL", "DCGM_FR_XID_ERROR"}},
    {"xid.other", {"ALL", "DCGM_FR_XID_ERROR"}},
};

}  // namespace dcgm_health_watch_detail

std::span<const std::string_view> DcgmHealthWatches() { return dcgm_health_watch_detail::kWatches; }

std::optional<DcgmHealthIncident> DcgmHealthIncidentOf(std::string_view finding_id) {
  for (const auto& row : dcgm_health_watch_detail::kRows) {
    if (row.finding_id == finding_id) return row.incident;
  }
  return std::nullopt;
}

int DcgmHealthWatchIndex(std::string_view watch) {
  const auto& w = dcgm_health_watch_detail::kWatches;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] == watch) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace gpudoctor
