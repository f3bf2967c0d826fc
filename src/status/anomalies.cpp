#include "status/anomalies.h"

#include <fmt/format.h>

#include "core/clock_reasons.h"

namespace gpudoctor {
namespace {

Level ReasonLevel(std::uint64_t bit) {
  switch (bit) {
    case 0x8: case 0x40: case 0x80: return Level::kCritical;  // HW slowdowns
    case 0x4: case 0x20: return Level::kWarning;              // SW caps
    case 0x10: return Level::kInfo;                           // sync boost
    default: return Level::kNone;
  }
}

void CheckState(const GpuStatus& g, std::vector<Anomaly>& out) {
  if (g.state == GpuState::kOk) return;
  out.push_back({Level::kCritical, g.index,
                 fmt::format("GPU is {}: {}", GpuStateName(g.state), g.state_detail)});
}

void CheckClocks(const GpuStatus& g, std::vector<Anomaly>& out) {
  if (!g.clock_event_reasons_mask) return;
  for (const auto& r : AllClockReasons()) {
    if (!(*g.clock_event_reasons_mask & r.bit)) continue;
    Level level = ReasonLevel(r.bit);
    if (level == Level::kNone) continue;
    out.push_back({level, g.index, fmt::format("clocks slowed: {} active", r.text)});
  }
}

void CheckMemoryErrors(const GpuStatus& g, std::vector<Anomaly>& out) {
  if (g.ecc_volatile_uncorrected.value_or(0) > 0) {
    out.push_back({Level::kCritical, g.index,
                   fmt::format("{} uncorrectable ECC errors since the driver loaded",
                               *g.ecc_volatile_uncorrected)});
  } else if (g.ecc_aggregate_uncorrected.value_or(0) > 0) {
    out.push_back({Level::kWarning, g.index,
                   fmt::format("{} uncorrectable ECC errors over the GPU's lifetime",
                               *g.ecc_aggregate_uncorrected)});
  }
  if (g.ecc_volatile_corrected.value_or(0) > 0) {
    out.push_back({Level::kInfo, g.index,
                   fmt::format("{} corrected ECC errors since the driver loaded",
                               *g.ecc_volatile_corrected)});
  }
  if (g.retired_pages_pending.value_or(false)) {
    out.push_back({Level::kWarning, g.index,
                   "page retirement pending: reset the GPU or reboot to retire the pages"});
  }
  if (g.remapped_rows_failure.value_or(false)) {
    out.push_back({Level::kCritical, g.index,
                   "row remapping failed: the GPU has run out of spare rows (RMA candidate)"});
  }
  if (g.remapped_rows_pending.value_or(false)) {
    out.push_back({Level::kWarning, g.index,
                   "row remap pending: reset the GPU to activate the remapped rows"});
  }
}

void CheckPcie(const GpuStatus& g, std::vector<Anomaly>& out) {
  if (g.pcie_link_width_current && g.pcie_link_width_max &&
      *g.pcie_link_width_current < *g.pcie_link_width_max) {
    out.push_back({Level::kWarning, g.index,
                   fmt::format("PCIe link width x{} below its max x{}",
                               *g.pcie_link_width_current, *g.pcie_link_width_max)});
  }
  if (g.pcie_link_gen_current && g.pcie_link_gen_max &&
      *g.pcie_link_gen_current < *g.pcie_link_gen_max) {
    bool idle = g.utilization_gpu_percent.value_or(0) == 0;
    out.push_back({idle ? Level::kInfo : Level::kWarning, g.index,
                   fmt::format("PCIe link Gen{} below its max Gen{}{}",
                               *g.pcie_link_gen_current, *g.pcie_link_gen_max,
                               idle ? " (normal power saving while idle)" : "")});
  }
}

void CheckReadings(const GpuStatus& g, const Thresholds& t, std::vector<Anomaly>& out) {
  auto temp = GradeTemperature(g.temperature_c ? std::optional<double>(*g.temperature_c)
                                               : std::nullopt,
                               g.temperature_slowdown_c
                                   ? std::optional<double>(*g.temperature_slowdown_c)
                                   : std::nullopt,
                               t);
  if (temp == Level::kWarning || temp == Level::kCritical) {
    out.push_back({temp, g.index,
                   fmt::format("temperature {} °C above {} °C", *g.temperature_c,
                               t.temperature_high_c)});
  }
  if (g.memory_total_bytes && g.memory_used_bytes && *g.memory_total_bytes > 0) {
    double pct = 100.0 * static_cast<double>(*g.memory_used_bytes) /
                 static_cast<double>(*g.memory_total_bytes);
    if (GradeMemory(pct, t) == Level::kWarning) {
      out.push_back({Level::kWarning, g.index,
                     fmt::format("GPU memory {:.0f}% used (over {:.0f}%: out-of-memory risk)",
                                 pct, t.memory_high_percent)});
    }
  }
  if (g.power_limit_w && g.power_default_limit_w &&
      *g.power_limit_w < *g.power_default_limit_w - 0.5) {
    out.push_back({Level::kInfo, g.index,
                   fmt::format("power limit {:.0f} W lowered below the default {:.0f} W",
                               *g.power_limit_w, *g.power_default_limit_w)});
  }
  if (g.persistence_mode && !*g.persistence_mode) {
    out.push_back({Level::kInfo, g.index,
                   "persistence mode is off (enable with 'sudo nvidia-smi -pm 1')"});
  }
}

void CheckNvLinks(const GpuStatus& g, std::vector<Anomaly>& out) {
  for (const auto& l : g.nvlinks) {
    if (l.active && !*l.active) {
      out.push_back({Level::kWarning, g.index, fmt::format("NVLink {} is down", l.link)});
    }
    std::int64_t errors = l.crc_flit_errors.value_or(0) + l.crc_data_errors.value_or(0) +
                          l.replay_errors.value_or(0) + l.recovery_errors.value_or(0);
    if (errors > 0) {
      out.push_back({Level::kInfo, g.index,
                     fmt::format("NVLink {} error counters: CRC flit {}, CRC data {}, "
                                 "replay {}, recovery {}",
                                 l.link, l.crc_flit_errors.value_or(0),
                                 l.crc_data_errors.value_or(0), l.replay_errors.value_or(0),
                                 l.recovery_errors.value_or(0))});
    }
  }
}

}  // namespace

std::vector<Anomaly> FindAnomalies(const GpuStatus& gpu, const Thresholds& thresholds) {
  std::vector<Anomaly> out;
  CheckState(gpu, out);
  if (gpu.state != GpuState::kOk) return out;
  CheckClocks(gpu, out);
  CheckMemoryErrors(gpu, out);
  CheckPcie(gpu, out);
  CheckReadings(gpu, thresholds, out);
  CheckNvLinks(gpu, out);
  for (const auto& [field, why] : gpu.field_errors) {
    out.push_back({Level::kInfo, gpu.index, fmt::format("could not read {}: {}", field, why)});
  }
  return out;
}

Level ReadingVerdict(const GpuStatus& gpu, const Thresholds& thresholds) {
  Level worst = Level::kNormal;
  for (const Anomaly& a : FindAnomalies(gpu, thresholds)) {
    if (static_cast<int>(a.level) > static_cast<int>(worst)) worst = a.level;
  }
  return worst;
}

const char* ReadingVerdictName(Level level) {
  switch (level) {
    case Level::kCritical: return "critical";
    case Level::kWarning: return "warning";
    case Level::kInfo: return "info";
    default: return "ok";
  }
}

}  // namespace gpudoctor
