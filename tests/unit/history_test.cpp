#include "core/history.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpudoctor {
namespace {

using namespace std::chrono_literals;
using Values = std::vector<std::optional<double>>;

GpuStatus Gpu(unsigned index, std::int64_t util) {
  GpuStatus gpu;
  gpu.index = index;
  gpu.utilization_gpu_percent = util;
  gpu.memory_total_bytes = 1000;
  gpu.memory_used_bytes = 250;
  gpu.temperature_c = 60;
  gpu.power_draw_w = 123.5;
  return gpu;
}

TEST(HistoryTest, CapacityCoversTheWindow) {
  EXPECT_EQ(History::CapacityFor(1000ms, 60s), 60u);
  EXPECT_EQ(History::CapacityFor(500ms, 60s), 120u);
  EXPECT_EQ(History::CapacityFor(700ms, 60s), 86u);  // 85.7 rounded up
  EXPECT_EQ(History::CapacityFor(100ms, 60s), 600u);
  EXPECT_EQ(History::CapacityFor(2min, 60s), 1u);
  EXPECT_EQ(History::CapacityFor(0ms, 60s), 1u);
}

TEST(HistoryTest, RingKeepsTheNewestInOrder) {
  SampleRing ring(3);
  EXPECT_TRUE(ring.Values().empty());
  ring.Push(1);
  ring.Push(2);
  EXPECT_EQ(ring.Values(), (Values{1, 2}));
  ring.Push(3);
  ring.Push(std::nullopt);
  ring.Push(5);
  EXPECT_EQ(ring.Values(), (Values{3, std::nullopt, 5}));
  EXPECT_EQ(ring.size(), 3u);
  EXPECT_EQ(ring.capacity(), 3u);
}

TEST(HistoryTest, ZeroCapacityRingKeepsNothing) {
  SampleRing ring(0);
  ring.Push(1);
  EXPECT_TRUE(ring.Values().empty());
}

TEST(HistoryTest, RecordsEveryMetricOfEveryGpu) {
  History history(4);
  SystemStatus status;
  status.gpus = {Gpu(0, 10), Gpu(3, 90)};
  history.Record(status);
  status.gpus[0].utilization_gpu_percent = 20;
  status.gpus[1].utilization_gpu_percent.reset();
  history.Record(status);

  EXPECT_EQ(history.Values(0, HistoryMetric::kUtilization), (Values{10, 20}));
  EXPECT_EQ(history.Values(3, HistoryMetric::kUtilization),
            (Values{90, std::nullopt}));
  EXPECT_EQ(history.Values(0, HistoryMetric::kMemoryPercent), (Values{25, 25}));
  EXPECT_EQ(history.Values(3, HistoryMetric::kTemperature), (Values{60, 60}));
  EXPECT_EQ(history.Values(3, HistoryMetric::kPower), (Values{123.5, 123.5}));
  EXPECT_TRUE(history.Values(1, HistoryMetric::kUtilization).empty());
}

TEST(HistoryTest, DropsTheOldestBeyondCapacity) {
  History history(3);
  for (int i = 0; i < 10; ++i) {
    history.Push(0, HistoryMetric::kPower, i);
  }
  EXPECT_EQ(history.Values(0, HistoryMetric::kPower), (Values{7, 8, 9}));
  EXPECT_EQ(history.capacity(), 3u);
}

TEST(HistoryTest, NonFiniteValuesAreMissing) {
  History history(2);
  history.Push(0, HistoryMetric::kPower, std::nan(""));
  EXPECT_EQ(history.Values(0, HistoryMetric::kPower), (Values{std::nullopt}));
}

TEST(HistoryTest, MemoryPercentNeedsUsedAndTotal) {
  GpuStatus gpu = Gpu(0, 0);
  EXPECT_EQ(HistoryValue(gpu, HistoryMetric::kMemoryPercent), 25.0);
  gpu.memory_total_bytes = 0;
  EXPECT_EQ(HistoryValue(gpu, HistoryMetric::kMemoryPercent), std::nullopt);
  gpu.memory_total_bytes.reset();
  EXPECT_EQ(HistoryValue(gpu, HistoryMetric::kMemoryPercent), std::nullopt);
}

}  // namespace
}  // namespace gpudoctor
