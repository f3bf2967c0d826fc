#include "render/active_summary.h"

#include <algorithm>

#include "core/clock_reasons.h"
#include "knowledge/pcie_link_rates.h"

namespace gpudoctor {

std::optional<double> ActiveReadingAt(const ActiveRun& run, const GpuSeries& series, std::size_t i) {
  if (i >= series.times.size() || !series.times[i]) return std::nullopt;
  return std::chrono::duration<double>(*series.times[i] - run.started_at).count();
}

BurnSummary SummarizeBurn(const DiagnosisInput& input, const ActiveGpuResult& gpu) {
  BurnSummary s;
  const GpuSeries* series = FindGpu(input, gpu.pci_bus_id);
  if (series == nullptr || !input.active) return s;
  double power_sum = 0;
  std::size_t power_n = 0;
  for (std::size_t i = 0; i < series->readings.size(); ++i) {
    const GpuStatus& r = series->readings[i];
    auto at = ActiveReadingAt(*input.active, *series, i);
    if (!at) continue;
    if (r.state == GpuState::kLost && !s.lost_at_s) s.lost_at_s = *at;
    if (!gpu.burn_started_s || *at < *gpu.burn_started_s || *at > gpu.burn_ended_s.value_or(*at)) continue;
    if (r.state != GpuState::kOk) continue;
    ++s.samples;
    if (r.power_limit_w) s.power_limit_w = r.power_limit_w;
    if (r.power_draw_w) {
      s.power_peak_w = std::max(s.power_peak_w.value_or(0), *r.power_draw_w);
      power_sum += *r.power_draw_w;
      ++power_n;
      if (!s.to_90pct_limit_s && r.power_limit_w && *r.power_draw_w >= kBurnLimitShare * *r.power_limit_w) {
        s.to_90pct_limit_s = *at - *gpu.burn_started_s;
      }
    }
    if (r.temperature_c) s.temperature_max_c = std::max(s.temperature_max_c.value_or(-300), *r.temperature_c);
    if (r.clocks_sm_mhz) {
      s.sm_clock_min_mhz = std::min(s.sm_clock_min_mhz.value_or(*r.clocks_sm_mhz), *r.clocks_sm_mhz);
      s.sm_clock_max_mhz = std::max(s.sm_clock_max_mhz.value_or(0), *r.clocks_sm_mhz);
    }
    if (r.clocks_max_sm_mhz) s.sm_clock_limit_mhz = r.clocks_max_sm_mhz;
    if (r.clock_event_reasons_mask) {
      for (const std::string& name : ClockReasonNames(*r.clock_event_reasons_mask)) {
        if (name != "gpu_idle") s.reasons.insert(name);
      }
    }
  }
  if (power_n > 0) s.power_avg_w = power_sum / static_cast<double>(power_n);
  return s;
}

std::optional<double> PcieLinkTheoreticalGbps(const ActiveGpuResult& gpu) {
  if (!gpu.pcie_link_gen || !gpu.pcie_link_width) return std::nullopt;
  auto lane = PcieLaneGbps(static_cast<long>(*gpu.pcie_link_gen));
  if (!lane) return std::nullopt;
  return *lane * static_cast<double>(*gpu.pcie_link_width);
}

}  // namespace gpudoctor
