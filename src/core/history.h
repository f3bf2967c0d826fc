// Recent samples for the live view: a fixed-size ring per GPU per metric.
// Oldest samples fall off as new ones arrive, so memory stays bounded however
// long `gpudoctor watch` runs. A missing reading is kept as std::nullopt so a
// gap shows as a gap.
//
// Thread-safety: none; one thread records and reads.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "core/gpu_status.h"

namespace gpudoctor {

enum class HistoryMetric {
  kUtilization,    // percent
  kMemoryPercent,  // used / total, percent
  kTemperature,    // degrees C
  kPower,          // watts drawn
  kSmActivity,     // GPM SM activity, percent (null without GPM)
  kSmClock,        // SM clock, MHz
};
constexpr std::size_t kHistoryMetricCount = 6;

// The value History records for metric from one reading of gpu.
std::optional<double> HistoryValue(const GpuStatus& gpu, HistoryMetric metric);

// A ring of at most capacity values; capacity 0 keeps nothing.
class SampleRing {
 public:
  explicit SampleRing(std::size_t capacity = 0);

  void Push(std::optional<double> value);
  // Oldest first; at most capacity values.
  std::vector<std::optional<double>> Values() const;
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }

 private:
  std::vector<std::optional<double>> slots_;
  std::size_t next_ = 0;  // slot the next value goes to
  std::size_t size_ = 0;
};

class History {
 public:
  // Keeps the last capacity samples of each metric of each GPU.
  explicit History(std::size_t capacity);

  // Samples needed to cover window at one sample per interval, rounded up;
  // at least 1.
  static std::size_t CapacityFor(std::chrono::milliseconds interval,
                                 std::chrono::milliseconds window);

  // Appends one sample of every metric for every GPU in status, keyed by
  // GPU index. GPUs absent from status get nothing appended.
  void Record(const SystemStatus& status);
  void Push(unsigned gpu_index, HistoryMetric metric,
            std::optional<double> value);

  // Oldest first; empty for a GPU never recorded.
  std::vector<std::optional<double>> Values(unsigned gpu_index,
                                            HistoryMetric metric) const;
  std::size_t capacity() const { return capacity_; }

 private:
  using Rings = std::array<SampleRing, kHistoryMetricCount>;
  Rings& RingsFor(unsigned gpu_index);

  std::size_t capacity_;
  std::map<unsigned, Rings> gpus_;
};

}  // namespace gpudoctor
