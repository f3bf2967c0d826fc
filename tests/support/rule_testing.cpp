#include "support/rule_testing.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/zh_check.h"

namespace gpudoctor::testing {

WallTime TestTime(double seconds) {
  // 2026-01-01T00:00:00Z
  WallTime base{std::chrono::seconds(1767225600)};
  return base + std::chrono::duration_cast<WallTime::duration>(
                    std::chrono::duration<double>(seconds));
}

GpuStatus HealthyGpu(unsigned index) {
  GpuStatus g;
  g.index = index;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = fmt::format("GPU-00000000-0000-0000-0000-{:012d}", index);
  g.pci_bus_id = fmt::format("0000:{:02x}:00.0", index + 0x18);
  g.utilization_gpu_percent = 75;
  g.utilization_memory_percent = 40;
  g.memory_total_bytes = 80LL << 30;
  g.memory_used_bytes = 40LL << 30;
  g.memory_free_bytes = 40LL << 30;
  g.temperature_c = 60;
  g.memory_temperature_c = 55;
  g.temperature_slowdown_c = 87;
  g.temperature_shutdown_c = 92;
  g.power_draw_w = 400;
  g.power_limit_w = 700;
  g.power_default_limit_w = 700;
  g.power_min_limit_w = 200;
  g.power_max_limit_w = 700;
  g.power_enforced_limit_w = 700;
  g.clocks_graphics_mhz = 1980;
  g.clocks_sm_mhz = 1980;
  g.clocks_memory_mhz = 2619;
  g.clocks_max_graphics_mhz = 1980;
  g.clocks_max_sm_mhz = 1980;
  g.clocks_max_memory_mhz = 2619;
  g.pstate = 0;
  g.clock_event_reasons_mask = 0;
  g.persistence_mode = true;
  g.compute_mode = "Default";
  g.mig_mode_enabled = false;
  g.mig_mode_pending = false;
  g.ecc_mode_enabled = true;
  g.ecc_mode_pending = true;
  g.ecc_volatile_corrected = 0;
  g.ecc_volatile_uncorrected = 0;
  g.ecc_aggregate_corrected = 0;
  g.ecc_aggregate_uncorrected = 0;
  g.remapped_rows_corrected = 0;
  g.remapped_rows_uncorrected = 0;
  g.remapped_rows_pending = false;
  g.remapped_rows_failure = false;
  g.pcie_link_gen_current = 5;
  g.pcie_link_gen_max = 5;
  g.pcie_link_width_current = 16;
  g.pcie_link_width_max = 16;
  g.pcie_tx_bytes_per_s = 100LL << 20;
  g.pcie_rx_bytes_per_s = 100LL << 20;
  g.pcie_replay_count = 0;
  g.processes = std::vector<GpuProcess>{{4242u + index, "python3", 40LL << 30}};
  return g;
}

DiagnosisInput InputFromReadings(const std::vector<std::vector<GpuStatus>>& readings) {
  DiagnosisInput input;
  for (std::size_t i = 0; i < readings.size(); ++i) {
    SystemStatus s;
    s.nvml_loaded = true;
    s.driver_version = "550.90.07";
    s.cuda_driver_version = 12040;
    s.gpus = readings[i];
    AddReading(input, s, TestTime(static_cast<double>(i)));
  }
  input.window_from = TestTime(0);
  input.window_to = TestTime(static_cast<double>(readings.size()));
  return input;
}

DiagnosisInput RepeatedReadings(const std::vector<GpuStatus>& gpus, std::size_t count) {
  return InputFromReadings(std::vector<std::vector<GpuStatus>>(count, gpus));
}

Diagnosis RunRule(const Rule& rule, const DiagnosisInput& input) {
  Diagnosis d = Diagnose(input, std::vector<const Rule*>{&rule});
  // Every finding any rule test produces is checked for its Chinese text,
  // its id and category, and for actions on what needs acting on.
  for (const Finding& f : d.findings) {
    EXPECT_EQ(f.id, rule.id);
    EXPECT_EQ(f.category, rule.category);
    for (const auto& problem : ChineseTextProblems(f)) ADD_FAILURE() << problem;
    if (f.severity >= Severity::kWarning) {
      EXPECT_FALSE(f.actions.empty()) << f.id << ": a warning or critical finding needs actions";
    }
    EXPECT_FALSE(f.evidence.empty()) << f.id << ": a finding needs evidence";
  }
  for (const NotChecked& n : d.not_checked) {
    for (const auto& problem : ChineseTextProblems(n)) ADD_FAILURE() << problem;
  }
  return d;
}

KernelEvent MakeEvent(KernelEventKind kind, std::optional<int> code, const std::string& bus_id,
                      const std::string& message, std::optional<WallTime> time) {
  KernelEvent e;
  e.kind = kind;
  e.code = code;
  e.pci_bus_id = bus_id;
  e.message = message;
  e.time = time;
  e.source = SourceRef{"kern.log", 1};
  return e;
}

}  // namespace gpudoctor::testing
