// Published peak device-memory bandwidth of the data-centre GPUs, by the
// name NVML reports, for the `stress --tests hbm` comparison. Each row names
// the NVIDIA document the figure is from. A copy kernel reaches a share of
// it (typically 80-90 % on HBM); the stress.hbm_below_peak rule allows for that.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

struct HbmPeak {
  std::string_view model;   // what the row matches, e.g. "H100 PCIe"
  double gbps = 0;          // GB/s, 10^9 bytes per second
  std::string_view source;  // the NVIDIA datasheet or page the figure is from
};

// The row for an NVML name ("NVIDIA H100 80GB HBM3"), most specific first;
// nullopt for a model the table does not know.
std::optional<HbmPeak> FindHbmPeak(std::string_view nvml_name);

// A copy kernel below this share of the published peak is a finding
// (stress.hbm_below_peak) and a marked cell in the report.
inline constexpr double kHbmFlagBelowShare = 0.6;

}  // namespace gpudoctor
