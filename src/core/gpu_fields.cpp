#include "core/gpu_fields.h"

#include <cmath>

namespace gpudoctor {

const std::vector<GpuField>& ScalarGpuFields() {
  using G = GpuStatus;
  static const std::vector<GpuField> kFields = {
      {"serial", &G::serial},
      {"board_part_number", &G::board_part_number},
      {"vbios_version", &G::vbios_version},
      {"inforom_image_version", &G::inforom_image_version},
      {"gsp_firmware_enabled", &G::gsp_firmware_enabled},
      {"gsp_firmware_version", &G::gsp_firmware_version},
      {"utilization_gpu_percent", &G::utilization_gpu_percent},
      {"utilization_memory_percent", &G::utilization_memory_percent},
      {"utilization_encoder_percent", &G::utilization_encoder_percent},
      {"utilization_decoder_percent", &G::utilization_decoder_percent},
      {"memory_total_bytes", &G::memory_total_bytes},
      {"memory_used_bytes", &G::memory_used_bytes},
      {"memory_free_bytes", &G::memory_free_bytes},
      {"memory_reserved_bytes", &G::memory_reserved_bytes},
      {"temperature_c", &G::temperature_c},
      {"memory_temperature_c", &G::memory_temperature_c},
      {"temperature_slowdown_c", &G::temperature_slowdown_c},
      {"temperature_shutdown_c", &G::temperature_shutdown_c},
      {"temperature_max_operating_c", &G::temperature_max_operating_c},
      {"temperature_memory_max_c", &G::temperature_memory_max_c},
      {"fan_speed_percent", &G::fan_speed_percent},
      {"power_draw_w", &G::power_draw_w},
      {"power_limit_w", &G::power_limit_w},
      {"power_default_limit_w", &G::power_default_limit_w},
      {"power_min_limit_w", &G::power_min_limit_w},
      {"power_max_limit_w", &G::power_max_limit_w},
      {"power_enforced_limit_w", &G::power_enforced_limit_w},
      {"energy_total_j", &G::energy_total_j},
      {"clocks_graphics_mhz", &G::clocks_graphics_mhz},
      {"clocks_sm_mhz", &G::clocks_sm_mhz},
      {"clocks_memory_mhz", &G::clocks_memory_mhz},
      {"clocks_max_graphics_mhz", &G::clocks_max_graphics_mhz},
      {"clocks_max_sm_mhz", &G::clocks_max_sm_mhz},
      {"clocks_max_memory_mhz", &G::clocks_max_memory_mhz},
      {"clocks_applications_graphics_mhz", &G::clocks_applications_graphics_mhz},
      {"clocks_applications_memory_mhz", &G::clocks_applications_memory_mhz},
      {"clocks_default_applications_graphics_mhz", &G::clocks_default_applications_graphics_mhz},
      {"clocks_default_applications_memory_mhz", &G::clocks_default_applications_memory_mhz},
      {"violation_power_ns", &G::violation_power_ns},
      {"violation_thermal_ns", &G::violation_thermal_ns},
      {"persistence_mode", &G::persistence_mode},
      {"compute_mode", &G::compute_mode},
      {"mig_mode_enabled", &G::mig_mode_enabled},
      {"mig_mode_pending", &G::mig_mode_pending},
      {"ecc_mode_enabled", &G::ecc_mode_enabled},
      {"ecc_mode_pending", &G::ecc_mode_pending},
      {"ecc_volatile_corrected", &G::ecc_volatile_corrected},
      {"ecc_volatile_uncorrected", &G::ecc_volatile_uncorrected},
      {"ecc_aggregate_corrected", &G::ecc_aggregate_corrected},
      {"ecc_aggregate_uncorrected", &G::ecc_aggregate_uncorrected},
      {"retired_pages_sbe", &G::retired_pages_sbe},
      {"retired_pages_dbe", &G::retired_pages_dbe},
      {"retired_pages_pending", &G::retired_pages_pending},
      {"remapped_rows_corrected", &G::remapped_rows_corrected},
      {"remapped_rows_uncorrected", &G::remapped_rows_uncorrected},
      {"remapped_rows_pending", &G::remapped_rows_pending},
      {"remapped_rows_failure", &G::remapped_rows_failure},
      {"recovery_action", &G::recovery_action},
      {"pcie_link_gen_current", &G::pcie_link_gen_current},
      {"pcie_link_gen_max", &G::pcie_link_gen_max},
      {"pcie_link_width_current", &G::pcie_link_width_current},
      {"pcie_link_width_max", &G::pcie_link_width_max},
      {"pcie_tx_bytes_per_s", &G::pcie_tx_bytes_per_s},
      {"pcie_rx_bytes_per_s", &G::pcie_rx_bytes_per_s},
      {"pcie_replay_count", &G::pcie_replay_count},
      {"gpm_supported", &G::gpm_supported},
      {"gpm_sm_activity_percent", &G::gpm_sm_activity_percent},
      {"gpm_sm_occupancy_percent", &G::gpm_sm_occupancy_percent},
      {"gpm_tensor_activity_percent", &G::gpm_tensor_activity_percent},
      {"gpm_fp64_activity_percent", &G::gpm_fp64_activity_percent},
      {"gpm_fp32_activity_percent", &G::gpm_fp32_activity_percent},
      {"gpm_fp16_activity_percent", &G::gpm_fp16_activity_percent},
      {"gpm_integer_activity_percent", &G::gpm_integer_activity_percent},
      {"gpm_dram_bandwidth_percent", &G::gpm_dram_bandwidth_percent},
      {"gpm_graphics_activity_percent", &G::gpm_graphics_activity_percent},
      {"gpm_pcie_tx_bytes_per_s", &G::gpm_pcie_tx_bytes_per_s},
      {"gpm_pcie_rx_bytes_per_s", &G::gpm_pcie_rx_bytes_per_s},
      {"gpm_nvlink_tx_bytes_per_s", &G::gpm_nvlink_tx_bytes_per_s},
      {"gpm_nvlink_rx_bytes_per_s", &G::gpm_nvlink_rx_bytes_per_s},
      {"nvml_call_latency_ms", &G::nvml_call_latency_ms},
  };
  return kFields;
}

const GpuField* FindGpuField(std::string_view name) {
  for (const auto& f : ScalarGpuFields()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string_view GpuFieldName(
    const std::variant<IntMember, RealMember, BoolMember, TextMember>& member) {
  for (const auto& f : ScalarGpuFields()) {
    if (f.member == member) return f.name;
  }
  return {};
}

std::optional<double> GetNumber(const GpuStatus& gpu, const GpuField& field) {
  return std::visit(
      [&](auto member) -> std::optional<double> {
        const auto& value = gpu.*member;
        if (!value) return std::nullopt;
        using T = std::decay_t<decltype(*value)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return std::nullopt;
        } else {
          return static_cast<double>(*value);
        }
      },
      field.member);
}

bool SetNumber(GpuStatus& gpu, const GpuField& field, double value) {
  return std::visit(
      [&](auto member) -> bool {
        auto& slot = gpu.*member;
        using T = typename std::decay_t<decltype(slot)>::value_type;
        if constexpr (std::is_same_v<T, std::string>) {
          return false;
        } else if constexpr (std::is_same_v<T, bool>) {
          slot = value != 0.0;
          return true;
        } else if constexpr (std::is_same_v<T, double>) {
          slot = value;
          return true;
        } else {
          slot = static_cast<T>(std::llround(value));
          return true;
        }
      },
      field.member);
}

void ClearField(GpuStatus& gpu, const GpuField& field) {
  std::visit([&](auto member) { (gpu.*member).reset(); }, field.member);
}

}  // namespace gpudoctor
