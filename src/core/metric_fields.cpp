#include "core/metric_fields.h"

#include <cmath>
#include <vector>

namespace gpudoctor {
namespace {

constexpr SeriesKind kCounter = SeriesKind::kCounter;
constexpr double kMiB = 1.0 / (1024.0 * 1024.0);  // dcgm-exporter's FB_* are MiB

// Names and units: gpudoctor's are the agent's /metrics (base units, ratios
// 0-1). dcgm-exporter's follow its etc/default-counters.csv and
// dcp-metrics-included.csv and DCGM's dcgm_fields.h: temperatures in C,
// power in W, energy in mJ, clocks in MHz, framebuffer in MiB, utilisation
// in percent, DCGM_FI_PROF_* activity as a ratio 0-1, violation times in
// ns (dcgm-exporter corrected its help text from us to ns, PR #589).
const MetricFieldNames kNames[] = {
    {"utilization_gpu_percent",
     {"gpudoctor_gpu_utilization_ratio", 0.01}, {"DCGM_FI_DEV_GPU_UTIL"}, {}},
    {"utilization_memory_percent",
     {"gpudoctor_gpu_memory_utilization_ratio", 0.01}, {"DCGM_FI_DEV_MEM_COPY_UTIL"}, {}},
    {"utilization_encoder_percent",
     {"gpudoctor_gpu_encoder_utilization_ratio", 0.01}, {"DCGM_FI_DEV_ENC_UTIL"}, {}},
    {"utilization_decoder_percent",
     {"gpudoctor_gpu_decoder_utilization_ratio", 0.01}, {"DCGM_FI_DEV_DEC_UTIL"}, {}},
    {"memory_total_bytes",
     {"gpudoctor_gpu_memory_total_bytes"}, {"DCGM_FI_DEV_FB_TOTAL", kMiB}, {}},
    {"memory_used_bytes",
     {"gpudoctor_gpu_memory_used_bytes"}, {"DCGM_FI_DEV_FB_USED", kMiB}, {}},
    {"memory_free_bytes",
     {"gpudoctor_gpu_memory_free_bytes"}, {"DCGM_FI_DEV_FB_FREE", kMiB}, {}},
    {"memory_reserved_bytes",
     {"gpudoctor_gpu_memory_reserved_bytes"}, {"DCGM_FI_DEV_FB_RESERVED", kMiB}, {}},
    {"temperature_c",
     {"gpudoctor_gpu_temperature_celsius"}, {"DCGM_FI_DEV_GPU_TEMP"}, {}},
    {"memory_temperature_c",
     {"gpudoctor_gpu_memory_temperature_celsius"}, {"DCGM_FI_DEV_MEMORY_TEMP"}, {}},
    {"temperature_slowdown_c",
     {"gpudoctor_gpu_slowdown_temperature_celsius"}, {"DCGM_FI_DEV_SLOWDOWN_TEMP"}, {}},
    {"temperature_shutdown_c",
     {"gpudoctor_gpu_shutdown_temperature_celsius"}, {"DCGM_FI_DEV_SHUTDOWN_TEMP"}, {}},
    {"temperature_max_operating_c",
     {}, {"DCGM_FI_DEV_GPU_MAX_OP_TEMP"}, {}},
    {"temperature_memory_max_c",
     {}, {"DCGM_FI_DEV_MEM_MAX_OP_TEMP"}, {}},
    {"fan_speed_percent",
     {"gpudoctor_gpu_fan_speed_ratio", 0.01}, {"DCGM_FI_DEV_FAN_SPEED"}, {}},
    {"power_draw_w",
     {"gpudoctor_gpu_power_draw_watts"}, {"DCGM_FI_DEV_POWER_USAGE"}, {}},
    {"power_limit_w",
     {"gpudoctor_gpu_power_limit_watts"}, {"DCGM_FI_DEV_POWER_MGMT_LIMIT"}, {}},
    {"power_default_limit_w",
     {}, {"DCGM_FI_DEV_POWER_MGMT_LIMIT_DEF"}, {}},
    {"power_min_limit_w",
     {}, {"DCGM_FI_DEV_POWER_MGMT_LIMIT_MIN"}, {}},
    {"power_max_limit_w",
     {}, {"DCGM_FI_DEV_POWER_MGMT_LIMIT_MAX"}, {}},
    {"power_enforced_limit_w",
     {"gpudoctor_gpu_power_enforced_limit_watts"}, {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT"}, {}},
    {"energy_total_j",
     {"gpudoctor_gpu_energy_joules_total", 1, kCounter},
     {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 1000, kCounter}, {}},
    {"clocks_graphics_mhz",
     {"gpudoctor_gpu_graphics_clock_hertz", 1e6}, {}, {}},
    {"clocks_sm_mhz",
     {"gpudoctor_gpu_sm_clock_hertz", 1e6}, {"DCGM_FI_DEV_SM_CLOCK"}, {}},
    {"clocks_memory_mhz",
     {"gpudoctor_gpu_memory_clock_hertz", 1e6}, {"DCGM_FI_DEV_MEM_CLOCK"}, {}},
    {"clocks_max_sm_mhz",
     {"gpudoctor_gpu_sm_clock_max_hertz", 1e6}, {"DCGM_FI_DEV_MAX_SM_CLOCK"}, {}},
    {"clocks_max_memory_mhz",
     {}, {"DCGM_FI_DEV_MAX_MEM_CLOCK"}, {}},
    {"clocks_applications_graphics_mhz",
     {}, {"DCGM_FI_DEV_APP_SM_CLOCK"}, {}},
    {"clocks_applications_memory_mhz",
     {}, {"DCGM_FI_DEV_APP_MEM_CLOCK"}, {}},
    {"pstate", {"gpudoctor_gpu_pstate"}, {"DCGM_FI_DEV_PSTATE"}, {}},
    {"clock_event_reasons_mask",
     {}, {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS"}, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"},
    {"violation_power_ns",
     {"gpudoctor_gpu_power_violation_seconds_total", 1e-9, kCounter},
     {"DCGM_FI_DEV_POWER_VIOLATION", 1, kCounter}, {}},
    {"violation_thermal_ns",
     {"gpudoctor_gpu_thermal_violation_seconds_total", 1e-9, kCounter},
     {"DCGM_FI_DEV_THERMAL_VIOLATION", 1, kCounter}, {}},
    {"persistence_mode",
     {"gpudoctor_gpu_persistence_mode"}, {"DCGM_FI_DEV_PERSISTENCE_MODE"}, {}},
    {"mig_mode_enabled", {"gpudoctor_gpu_mig_mode"}, {"DCGM_FI_DEV_MIG_MODE"}, {}},
    {"mig_mode_pending", {"gpudoctor_gpu_mig_mode_pending"}, {}, {}},
    {"ecc_mode_enabled",
     {"gpudoctor_gpu_ecc_mode"}, {"DCGM_FI_DEV_ECC_CURRENT"}, {}},
    {"ecc_mode_pending", {"gpudoctor_gpu_ecc_mode_pending"}, {"DCGM_FI_DEV_ECC_PENDING"}, {}},
    {"ecc_volatile_corrected",
     {"gpudoctor_gpu_ecc_corrected_errors_total", 1, kCounter},
     {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", 1, kCounter}, {}},
    {"ecc_volatile_uncorrected",
     {"gpudoctor_gpu_ecc_uncorrected_errors_total", 1, kCounter},
     {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, kCounter}, {}},
    {"ecc_aggregate_corrected",
     {}, {"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", 1, kCounter}, {}},
    {"ecc_aggregate_uncorrected",
     {}, {"DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", 1, kCounter}, {}},
    {"retired_pages_sbe",
     {}, {"DCGM_FI_DEV_RETIRED_SBE", 1, kCounter}, {}},
    {"retired_pages_dbe",
     {}, {"DCGM_FI_DEV_RETIRED_DBE", 1, kCounter}, {}},
    {"retired_pages_pending",
     {"gpudoctor_gpu_retired_pages_pending"}, {"DCGM_FI_DEV_RETIRED_PENDING", 1, kCounter}, {}},
    {"remapped_rows_corrected",
     {}, {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", 1, kCounter}, {}},
    {"remapped_rows_uncorrected",
     {}, {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", 1, kCounter}, {}},
    {"remapped_rows_pending",
     {"gpudoctor_gpu_remapped_rows_pending"}, {"DCGM_FI_DEV_ROW_REMAP_PENDING"}, {}},
    {"remapped_rows_failure",
     {"gpudoctor_gpu_remapped_rows_failure"}, {"DCGM_FI_DEV_ROW_REMAP_FAILURE"}, {}},
    {"pcie_link_gen_current",
     {"gpudoctor_gpu_pcie_link_generation"}, {"DCGM_FI_DEV_PCIE_LINK_GEN"}, {}},
    {"pcie_link_gen_max",
     {"gpudoctor_gpu_pcie_link_generation_max"}, {"DCGM_FI_DEV_PCIE_MAX_LINK_GEN"}, {}},
    {"pcie_link_width_current",
     {"gpudoctor_gpu_pcie_link_width"}, {"DCGM_FI_DEV_PCIE_LINK_WIDTH"}, {}},
    {"pcie_link_width_max",
     {"gpudoctor_gpu_pcie_link_width_max"}, {"DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH"}, {}},
    {"pcie_tx_bytes_per_s",
     {"gpudoctor_gpu_pcie_tx_bytes_per_second"}, {}, {}},
    {"pcie_rx_bytes_per_s",
     {"gpudoctor_gpu_pcie_rx_bytes_per_second"}, {}, {}},
    {"pcie_replay_count",
     {"gpudoctor_gpu_pcie_replays_total", 1, kCounter},
     {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 1, kCounter}, {}},
    {"gpm_supported",
     {"gpudoctor_gpu_gpm_supported"}, {"DCGM_FI_DEV_GPM_SUPPORT"}, {}},
    {"gpm_sm_activity_percent",
     {"gpudoctor_gpu_sm_activity_ratio", 0.01}, {"DCGM_FI_PROF_SM_ACTIVE", 0.01}, {}},
    {"gpm_sm_occupancy_percent",
     {"gpudoctor_gpu_sm_occupancy_ratio", 0.01}, {"DCGM_FI_PROF_SM_OCCUPANCY", 0.01}, {}},
    {"gpm_tensor_activity_percent",
     {"gpudoctor_gpu_tensor_pipe_activity_ratio", 0.01},
     {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 0.01}, {}},
    {"gpm_fp64_activity_percent",
     {"gpudoctor_gpu_fp64_pipe_activity_ratio", 0.01}, {"DCGM_FI_PROF_PIPE_FP64_ACTIVE", 0.01}, {}},
    {"gpm_fp32_activity_percent",
     {"gpudoctor_gpu_fp32_pipe_activity_ratio", 0.01}, {"DCGM_FI_PROF_PIPE_FP32_ACTIVE", 0.01}, {}},
    {"gpm_fp16_activity_percent",
     {"gpudoctor_gpu_fp16_pipe_activity_ratio", 0.01}, {"DCGM_FI_PROF_PIPE_FP16_ACTIVE", 0.01}, {}},
    {"gpm_integer_activity_percent",
     {"gpudoctor_gpu_integer_pipe_activity_ratio", 0.01}, {"DCGM_FI_PROF_PIPE_INT_ACTIVE", 0.01}, {}},
    {"gpm_dram_bandwidth_percent",
     {"gpudoctor_gpu_dram_bandwidth_ratio", 0.01}, {"DCGM_FI_PROF_DRAM_ACTIVE", 0.01}, {}},
    {"gpm_graphics_activity_percent",
     {"gpudoctor_gpu_graphics_activity_ratio", 0.01}, {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", 0.01}, {}},
    {"gpm_pcie_tx_bytes_per_s",
     {"gpudoctor_gpu_gpm_pcie_tx_bytes_per_second"}, {"DCGM_FI_PROF_PCIE_TX_BYTES"}, {}},
    {"gpm_pcie_rx_bytes_per_s",
     {"gpudoctor_gpu_gpm_pcie_rx_bytes_per_second"}, {"DCGM_FI_PROF_PCIE_RX_BYTES"}, {}},
    {"gpm_nvlink_tx_bytes_per_s",
     {"gpudoctor_gpu_nvlink_tx_bytes_per_second"}, {"DCGM_FI_PROF_NVLINK_TX_BYTES"}, {}},
    {"gpm_nvlink_rx_bytes_per_s",
     {"gpudoctor_gpu_nvlink_rx_bytes_per_second"}, {"DCGM_FI_PROF_NVLINK_RX_BYTES"}, {}},
};

struct ResolvedFields {
  std::vector<MetricField> fields;
  ResolvedFields() {
    for (const auto& n : kNames) fields.push_back(MetricField{n, FindGpuField(n.status_name)});
  }
};

const std::vector<MetricField>& Resolved() {
  static const ResolvedFields kResolved;
  return kResolved.fields;
}

}  // namespace

std::span<const MetricField> MetricFields() { return Resolved(); }

bool IsPerMigInstanceField(const MetricField& field) {
  // What the MIG reader fills (nvml/mig_reader.cpp, gpm_reader.cpp): the
  // memory sizes and GPM's metrics; memory temperature and GPM support are
  // the GPU's.
  const std::string_view name = field.names.status_name;
  return (name.starts_with("memory_") && name.ends_with("_bytes")) ||
         (name.starts_with("gpm_") && name != "gpm_supported");
}

std::optional<double> FieldValue(const GpuStatus& gpu, const MetricField& field) {
  if (field.scalar) return GetNumber(gpu, *field.scalar);
  if (field.names.status_name == "pstate" && gpu.pstate) return static_cast<double>(*gpu.pstate);
  if (field.names.status_name == "clock_event_reasons_mask" && gpu.clock_event_reasons_mask) {
    return static_cast<double>(*gpu.clock_event_reasons_mask);
  }
  return std::nullopt;
}

void SetFieldValue(GpuStatus& gpu, const MetricField& field, double value) {
  // Beyond +-2^63 llround is undefined; no field holds such a value.
  if (!std::isfinite(value) || std::fabs(value) >= 9.2e18) return;
  if (field.scalar) {
    SetNumber(gpu, *field.scalar, value);
  } else if (field.names.status_name == "pstate") {
    gpu.pstate = std::llround(value);
  } else if (field.names.status_name == "clock_event_reasons_mask" && value >= 0) {
    gpu.clock_event_reasons_mask = static_cast<std::uint64_t>(std::llround(value));
  }
}

FieldOfSeries FindFieldOfSeries(std::string_view series_name) {
  if (series_name.empty()) return {};
  for (const auto& f : Resolved()) {
    const MetricFieldNames& n = f.names;
    if (n.gpudoctor.name == series_name) return {&f, 1 / n.gpudoctor.per_field_unit};
    if (n.dcgm.name == series_name || n.dcgm_alias == series_name) {
      return {&f, 1 / n.dcgm.per_field_unit};
    }
  }
  return {};
}

}  // namespace gpudoctor
