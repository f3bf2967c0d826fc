// Statistics over a window of readings, so that rules judge what happened
// over time rather than one reading: min/avg/max, the share of readings at
// or above a threshold ("sustained"), the coefficient of variation and the
// peak-to-peak of a series. Pure.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/gpu_status.h"
#include "facts/diagnosis_input.h"

namespace gpudoctor {

struct SeriesStats {
  std::size_t count = 0;  // readings that had a value
  double min = 0;
  double avg = 0;
  double max = 0;
  double stddev = 0;  // population standard deviation
  double first = 0;
  double last = 0;
};

// nullopt when `values` is empty.
std::optional<SeriesStats> Summarize(const std::vector<double>& values);

// The values a getter yields over a GPU's readings, skipping nullopt.
using GpuGetter = std::function<std::optional<double>(const GpuStatus&)>;
std::vector<double> ValuesOf(const GpuSeries& gpu, const GpuGetter& get);

// Share (0..1) of values >= threshold / < threshold; 0 when empty.
double FractionAtOrAbove(const std::vector<double>& values, double threshold);
double FractionBelow(const std::vector<double>& values, double threshold);

// True when at least `fraction` of the values are >= threshold (and there is
// at least one value). `fraction` is Config::sustained_fraction (0.8).
bool SustainedAtOrAbove(const std::vector<double>& values, double threshold, double fraction);
bool SustainedBelow(const std::vector<double>& values, double threshold, double fraction);

// Readings needed before "sustained" may escalate a finding to critical: one
// snapshot (an nvidia-smi dump) shows a moment, not a trend.
inline constexpr std::size_t kMinReadingsForSustained = 3;

// stddev / mean; nullopt when fewer than 2 values or mean <= 0.
std::optional<double> CoefficientOfVariation(const std::vector<double>& values);
// max - min; 0 when empty.
double PeakToPeak(const std::vector<double>& values);

// Share (0..1) of readings with `reason_bit` set in clock_event_reasons_mask
// (readings without a mask are not counted); nullopt when none had a mask.
std::optional<double> ClockReasonShare(const GpuSeries& gpu, std::uint64_t reason_bit);

// memory used / total in percent; nullopt when either is missing or total 0.
std::optional<double> MemoryUsedPercent(const GpuStatus& gpu);

// Rounds for display: 91.0 -> "91", 91.25 -> "91.3" (at most `decimals`).
std::string FormatNumber(double value, int decimals = 1);

}  // namespace gpudoctor
