// Synthetic GPU readings for the store tests: every field a deterministic
// function of the GPU and the second, so a test can recompute what it wrote.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/clock_reasons.h"
#include "core/gpu_status.h"
#include "store/chunk_codec.h"
#include "store/sample_codec.h"
#include "store/store.h"

namespace gpudoctor::test {

// 2023-11-14 22:10:00 UTC: a whole ten minutes, so chunk edges are known.
inline constexpr std::int64_t kBaseSeconds = 1'700'000'000 - 1'700'000'000 % 600;

inline WallTime At(std::int64_t second) {
  return WallTime(std::chrono::seconds(kBaseSeconds + second));
}

inline std::string BusId(unsigned index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0000:%02x:00.0", 0x18 + index * 0x10);
  return buf;
}

inline GpuStatus MakeGpu(unsigned index, std::int64_t second) {
  GpuStatus g;
  g.index = index;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = "GPU-0000000" + std::to_string(index) + "-aaaa-bbbb-cccc-ddddeeeeffff";
  g.pci_bus_id = BusId(index);
  g.serial = "165432100" + std::to_string(index);
  bool busy = (second / 300) % 2 == 1;
  g.utilization_gpu_percent = busy ? 95 + second % 5 : 0;
  g.utilization_memory_percent = busy ? 40 : 0;
  g.memory_total_bytes = 85'520'809'984;
  g.memory_used_bytes = busy ? 60'000'000'000 + (second / 60) * 1'048'576 : 512 * 1'048'576;
  g.temperature_c = (busy ? 70 : 35) + second % 4 + static_cast<std::int64_t>(index);
  g.temperature_slowdown_c = 87;
  g.power_draw_w = (busy ? 600.0 : 70.0) + static_cast<double>(second % 17) * 3.125;
  g.power_limit_w = 700.0;
  g.energy_total_j = 1.0e6 + static_cast<double>(second) * 123.5;
  g.clocks_sm_mhz = busy ? 1980 - (second % 3) * 15 : 345;
  g.clocks_max_sm_mhz = 1980;
  g.pstate = busy ? 0 : 8;
  std::uint64_t mask = busy ? 0 : ClockReasonBit("gpu_idle");
  if (second % 10 == 0) mask |= ClockReasonBit("sw_thermal_slowdown");
  g.clock_event_reasons_mask = mask;
  g.persistence_mode = true;
  g.compute_mode = "Default";
  g.ecc_volatile_corrected = second / 3000;
  g.pcie_link_gen_current = 5;
  g.fan_speeds_percent = {30 + second % 2, 31};
  g.fan_speed_percent = g.fan_speeds_percent[0];
  NvLinkStatus link;
  link.link = 0;
  link.active = true;
  link.crc_flit_errors = second / 1000;
  g.nvlinks = {link};
  if (busy) g.processes = std::vector<GpuProcess>{{4242, "python3", 59'000'000'000}};
  if (second == 7) g.field_errors["memory_reserved_bytes"] = "permission denied";
  return g;
}

inline SystemStatus MakeSystem(unsigned gpus, std::int64_t second) {
  SystemStatus s;
  s.nvml_loaded = true;
  for (unsigned i = 0; i < gpus; ++i) s.gpus.push_back(MakeGpu(i, second));
  return s;
}

// The cells of a reading as comparable pairs.
inline std::vector<std::pair<std::string, Cell>> CellsOf(const GpuStatus& gpu) {
  std::vector<NamedCell> cells;
  StatusToCells(gpu, cells);
  std::vector<std::pair<std::string, Cell>> out;
  for (auto& c : cells) out.emplace_back(std::move(c.name), std::move(c.value));
  return out;
}

inline std::unique_ptr<Store> OpenOrDie(const StoreOptions& options) {
  auto store = Store::Open(options);
  if (!store.ok()) throw std::runtime_error(store.error().message);
  return std::move(*store);
}

}  // namespace gpudoctor::test
