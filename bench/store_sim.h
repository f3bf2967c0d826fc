// A simulated fleet node for the store benchmarks: N GPUs sampled at 1 Hz
// through training-job phases (utilisation 0 or ~95 %), temperature
// following load with noise, noisy power (mW resolution, as NVML gives it),
// stepping clocks, memory used in steps, counters that rarely increase and
// constant limits. Deterministic for a seed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/clock_reasons.h"
#include "core/gpu_status.h"

namespace gpudoctor::bench {

class SimGpu {
 public:
  SimGpu(unsigned index, std::uint32_t seed) : index_(index), rng_(seed) {}

  GpuStatus Next() {
    if (--phase_left_ <= 0) NewPhase();
    GpuStatus g;
    g.index = index_;
    g.name = "NVIDIA H100 80GB HBM3";
    g.uuid = "GPU-5e1c0f4a-77d2-4b1e-9c1a-00000000000" + std::to_string(index_);
    char bus[32];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x18 + index_ * 0x10);
    g.pci_bus_id = bus;
    g.serial = "165232100" + std::to_string(1000 + index_);
    g.vbios_version = "96.00.74.00.01";
    g.compute_mode = "Default";
    g.persistence_mode = true;
    g.ecc_mode_enabled = true;
    g.mig_mode_enabled = false;

    double target_temp = busy_ ? 68.0 + 6.0 * load_ : 33.0;
    temp_ += (target_temp - temp_) * 0.02 + Normal(0.3);
    mem_temp_ += (target_temp + 4 - mem_temp_) * 0.02 + Normal(0.3);
    g.temperature_c = std::llround(temp_);
    g.memory_temperature_c = std::llround(mem_temp_);
    g.utilization_gpu_percent =
        busy_ ? std::clamp<std::int64_t>(std::llround(95 + Normal(3)), 60, 100) : 0;
    g.utilization_memory_percent = busy_ ? std::llround(35 + 10 * load_ + Normal(2)) : 0;

    double power_w = busy_ ? 520 + 150 * load_ + Normal(25) : 68 + Normal(1.5);
    power_w = std::clamp(power_w, 50.0, 700.0);
    g.power_draw_w = static_cast<double>(std::llround(power_w * 1000)) / 1000.0;
    energy_mj_ += static_cast<std::int64_t>(power_w * 1000);
    g.energy_total_j = static_cast<double>(energy_mj_) / 1000.0;
    g.power_limit_w = 700.0;
    g.power_default_limit_w = 700.0;
    g.power_enforced_limit_w = 700.0;
    g.power_min_limit_w = 200.0;
    g.power_max_limit_w = 700.0;

    if (busy_ && Uniform() < 0.05) sm_clock_ = 1980 - 15 * static_cast<int>(Uniform() * 12);
    if (!busy_) sm_clock_ = 345;
    g.clocks_sm_mhz = sm_clock_;
    g.clocks_graphics_mhz = sm_clock_;
    g.clocks_memory_mhz = 2619;
    g.clocks_max_sm_mhz = 1980;
    g.clocks_max_graphics_mhz = 1980;
    g.clocks_max_memory_mhz = 2619;
    g.clocks_applications_graphics_mhz = 1755;
    g.clocks_applications_memory_mhz = 2619;
    g.clocks_default_applications_graphics_mhz = 1755;
    g.clocks_default_applications_memory_mhz = 2619;
    g.pstate = 0;
    bool capped = busy_ && power_w > 690;
    g.clock_event_reasons_mask =
        busy_ ? (capped ? ClockReasonBit("sw_power_cap") : 0) : ClockReasonBit("gpu_idle");
    if (capped) violation_power_ns_ += 1'000'000'000;
    g.violation_power_ns = violation_power_ns_;
    g.violation_thermal_ns = 0;

    g.memory_total_bytes = 85'520'809'984;
    g.memory_reserved_bytes = 576'126'976;
    if (busy_ && Uniform() < 0.01) mem_used_ += 2 * 1'048'576;
    g.memory_used_bytes = busy_ ? mem_used_ : 4 * 1'048'576;
    g.memory_free_bytes = *g.memory_total_bytes - *g.memory_reserved_bytes - *g.memory_used_bytes;

    if (Uniform() < 1.0 / 20000) ++ecc_corrected_;
    g.ecc_volatile_corrected = ecc_corrected_;
    g.ecc_volatile_uncorrected = 0;
    g.ecc_aggregate_corrected = ecc_corrected_ + 12;
    g.ecc_aggregate_uncorrected = 0;
    g.retired_pages_sbe = 0;
    g.retired_pages_dbe = 0;
    g.retired_pages_pending = false;
    g.remapped_rows_corrected = 0;
    g.remapped_rows_uncorrected = 0;
    g.remapped_rows_pending = false;
    g.remapped_rows_failure = false;
    g.temperature_slowdown_c = 87;
    g.temperature_shutdown_c = 92;
    g.temperature_max_operating_c = 85;
    g.temperature_memory_max_c = 95;
    g.pcie_link_gen_current = 5;
    g.pcie_link_gen_max = 5;
    g.pcie_link_width_current = 16;
    g.pcie_link_width_max = 16;
    // NVML reports PCIe throughput in KB/s.
    g.pcie_tx_bytes_per_s = busy_ ? 1024 * std::llround(std::max(0.0, 90'000 + Normal(40'000))) : 0;
    g.pcie_rx_bytes_per_s =
        busy_ ? 1024 * std::llround(std::max(0.0, 250'000 + Normal(90'000))) : 0;
    if (Uniform() < 1.0 / 50000) ++pcie_replays_;
    g.pcie_replay_count = pcie_replays_;
    return g;
  }

 private:
  void NewPhase() {
    busy_ = !busy_;
    if (busy_) {
      phase_left_ = static_cast<int>(1200 + Uniform() * 6 * 3600);
      load_ = Uniform();
      mem_used_ = static_cast<std::int64_t>(40e9 + Uniform() * 38e9) / 1'048'576 * 1'048'576;
      sm_clock_ = 1980;
    } else {
      phase_left_ = static_cast<int>(300 + Uniform() * 2 * 3600);
    }
  }
  double Uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
  double Normal(double sd) { return std::normal_distribution<double>(0, sd)(rng_); }

  unsigned index_;
  std::mt19937 rng_;
  bool busy_ = true;
  int phase_left_ = 0;
  double load_ = 0.5;
  double temp_ = 35;
  double mem_temp_ = 38;
  std::int64_t energy_mj_ = 123'456'789'000;
  int sm_clock_ = 345;
  std::int64_t mem_used_ = 0;
  std::int64_t violation_power_ns_ = 0;
  std::int64_t ecc_corrected_ = 0;
  std::int64_t pcie_replays_ = 0;
};

// All GPUs of the node, one SystemStatus per second.
class SimNode {
 public:
  explicit SimNode(unsigned gpus, std::uint32_t seed = 42) {
    for (unsigned i = 0; i < gpus; ++i) gpus_.emplace_back(i, seed + i * 7919);
  }
  SystemStatus Next() {
    SystemStatus s;
    s.nvml_loaded = true;
    s.driver_version = "550.54.15";
    for (auto& g : gpus_) s.gpus.push_back(g.Next());
    return s;
  }

 private:
  std::vector<SimGpu> gpus_;
};

}  // namespace gpudoctor::bench
