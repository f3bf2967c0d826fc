#include "core/history.h"

#include <cmath>

namespace gpudoctor {

std::optional<double> HistoryValue(const GpuStatus& gpu, HistoryMetric metric) {
  switch (metric) {
    case HistoryMetric::kUtilization:
      if (!gpu.utilization_gpu_percent) return std::nullopt;
      return static_cast<double>(*gpu.utilization_gpu_percent);
    case HistoryMetric::kMemoryPercent:
      if (!gpu.memory_used_bytes || !gpu.memory_total_bytes ||
          *gpu.memory_total_bytes <= 0) {
        return std::nullopt;
      }
      return 100.0 * static_cast<double>(*gpu.memory_used_bytes) /
             static_cast<double>(*gpu.memory_total_bytes);
    case HistoryMetric::kTemperature:
      if (!gpu.temperature_c) return std::nullopt;
      return static_cast<double>(*gpu.temperature_c);
    case HistoryMetric::kPower:
      return gpu.power_draw_w;
    case HistoryMetric::kSmActivity:
      return gpu.gpm_sm_activity_percent;
    case HistoryMetric::kSmClock:
      if (!gpu.clocks_sm_mhz) return std::nullopt;
      return static_cast<double>(*gpu.clocks_sm_mhz);
  }
  return std::nullopt;
}

SampleRing::SampleRing(std::size_t capacity) : slots_(capacity) {}

void SampleRing::Push(std::optional<double> value) {
  if (slots_.empty()) return;
  slots_[next_] = value;
  next_ = (next_ + 1) % slots_.size();
  if (size_ < slots_.size()) ++size_;
}

std::vector<std::optional<double>> SampleRing::Values() const {
  std::vector<std::optional<double>> out;
  out.reserve(size_);
  // When full the oldest value sits where the next one will go.
  std::size_t start = size_ < slots_.size() ? 0 : next_;
  for (std::size_t i = 0; i < size_; ++i) {
    out.push_back(slots_[(start + i) % slots_.size()]);
  }
  return out;
}

History::History(std::size_t capacity) : capacity_(capacity) {}

std::size_t History::CapacityFor(std::chrono::milliseconds interval,
                                 std::chrono::milliseconds window) {
  if (interval.count() <= 0 || window.count() <= 0) return 1;
  auto n = (window.count() + interval.count() - 1) / interval.count();
  return n < 1 ? 1 : static_cast<std::size_t>(n);
}

History::Rings& History::RingsFor(unsigned gpu_index) {
  auto it = gpus_.find(gpu_index);
  if (it == gpus_.end()) {
    Rings rings;
    for (auto& ring : rings) ring = SampleRing(capacity_);
    it = gpus_.emplace(gpu_index, std::move(rings)).first;
  }
  return it->second;
}

void History::Record(const SystemStatus& status) {
  for (const auto& gpu : status.gpus) {
    for (std::size_t m = 0; m < kHistoryMetricCount; ++m) {
      auto metric = static_cast<HistoryMetric>(m);
      Push(gpu.index, metric, HistoryValue(gpu, metric));
    }
  }
}

void History::Push(unsigned gpu_index, HistoryMetric metric,
                   std::optional<double> value) {
  if (value && !std::isfinite(*value)) value.reset();
  RingsFor(gpu_index)[static_cast<std::size_t>(metric)].Push(value);
}

std::vector<std::optional<double>> History::Values(unsigned gpu_index,
                                                   HistoryMetric metric) const {
  auto it = gpus_.find(gpu_index);
  if (it == gpus_.end()) return {};
  return it->second[static_cast<std::size_t>(metric)].Values();
}

}  // namespace gpudoctor
