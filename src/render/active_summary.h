// A stress run's measurements summarised for the report: the burn's 100 ms
// NVML samples of one GPU (power peak and average, how fast it reached 90 %
// of its limit, temperature, clocks, clock event reasons), and the PCIe
// link's theoretical bandwidth. Pure: the DiagnosisInput in, numbers out.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "facts/diagnosis_input.h"

namespace gpudoctor {

struct BurnSummary {
  std::size_t samples = 0;  // readings of the GPU during its burn
  std::optional<double> power_peak_w, power_avg_w, power_limit_w;
  // Seconds from the burn's first launch to the first reading at 90 % of
  // the power limit or more; nullopt when it never got there.
  std::optional<double> to_90pct_limit_s;
  std::optional<std::int64_t> temperature_max_c, sm_clock_min_mhz, sm_clock_max_mhz, sm_clock_limit_mhz;
  std::set<std::string> reasons;  // clock event reasons seen (gpu_idle left out)
  std::optional<double> lost_at_s;  // seconds into the run NVML first read it lost
};

// The share of the power limit the burn is timed to.
inline constexpr double kBurnLimitShare = 0.9;

BurnSummary SummarizeBurn(const DiagnosisInput& input, const ActiveGpuResult& gpu);

// The PCIe link's theoretical one-direction GB/s at the generation and width
// read under load (knowledge/pcie_link_rates.h); nullopt when unknown.
std::optional<double> PcieLinkTheoreticalGbps(const ActiveGpuResult& gpu);

// Seconds into the run of reading `i` of `series`; nullopt without a time.
std::optional<double> ActiveReadingAt(const ActiveRun& run, const GpuSeries& series, std::size_t i);

}  // namespace gpudoctor
