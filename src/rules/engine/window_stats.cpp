#include "rules/engine/window_stats.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace gpudoctor {

std::optional<SeriesStats> Summarize(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  SeriesStats s;
  s.count = values.size();
  s.first = values.front();
  s.last = values.back();
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  s.avg = sum / static_cast<double>(values.size());
  double sq = 0;
  for (double v : values) sq += (v - s.avg) * (v - s.avg);
  s.stddev = std::sqrt(sq / static_cast<double>(values.size()));
  return s;
}

std::vector<double> ValuesOf(const GpuSeries& gpu, const GpuGetter& get) {
  std::vector<double> out;
  out.reserve(gpu.readings.size());
  for (const auto& r : gpu.readings) {
    if (auto v = get(r); v && std::isfinite(*v)) out.push_back(*v);
  }
  return out;
}

double FractionAtOrAbove(const std::vector<double>& values, double threshold) {
  if (values.empty()) return 0;
  auto n = std::count_if(values.begin(), values.end(), [&](double v) { return v >= threshold; });
  return static_cast<double>(n) / static_cast<double>(values.size());
}

double FractionBelow(const std::vector<double>& values, double threshold) {
  if (values.empty()) return 0;
  auto n = std::count_if(values.begin(), values.end(), [&](double v) { return v < threshold; });
  return static_cast<double>(n) / static_cast<double>(values.size());
}

bool SustainedAtOrAbove(const std::vector<double>& values, double threshold, double fraction) {
  return !values.empty() && FractionAtOrAbove(values, threshold) >= fraction;
}

bool SustainedBelow(const std::vector<double>& values, double threshold, double fraction) {
  return !values.empty() && FractionBelow(values, threshold) >= fraction;
}

std::optional<double> CoefficientOfVariation(const std::vector<double>& values) {
  if (values.size() < 2) return std::nullopt;
  auto s = Summarize(values);
  if (!s || s->avg <= 0) return std::nullopt;
  return s->stddev / s->avg;
}

double PeakToPeak(const std::vector<double>& values) {
  if (values.empty()) return 0;
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *hi - *lo;
}

std::optional<double> ClockReasonShare(const GpuSeries& gpu, std::uint64_t reason_bit) {
  std::size_t with_mask = 0;
  std::size_t set = 0;
  for (const auto& r : gpu.readings) {
    if (!r.clock_event_reasons_mask) continue;
    ++with_mask;
    if ((*r.clock_event_reasons_mask & reason_bit) != 0) ++set;
  }
  if (with_mask == 0) return std::nullopt;
  return static_cast<double>(set) / static_cast<double>(with_mask);
}

std::optional<double> MemoryUsedPercent(const GpuStatus& gpu) {
  if (!gpu.memory_used_bytes || !gpu.memory_total_bytes || *gpu.memory_total_bytes <= 0) {
    return std::nullopt;
  }
  return 100.0 * static_cast<double>(*gpu.memory_used_bytes) /
         static_cast<double>(*gpu.memory_total_bytes);
}

std::string FormatNumber(double value, int decimals) {
  if (!std::isfinite(value)) return "?";
  std::string s = fmt::format("{:.{}f}", value, std::max(0, decimals));
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace gpudoctor
