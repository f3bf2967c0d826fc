#include "nvml/read_lanes.h"

#include <gtest/gtest.h>

namespace gpudoctor {
namespace {

using std::chrono::milliseconds;

TEST(ReadLanes, FastReadInTurnStaysOnOneLane) {
  EXPECT_EQ(NextReadLanes(1, milliseconds(40), 8, 8), 1u);
  EXPECT_EQ(NextReadLanes(1, kSlowGpuRead, 8, 8), 1u);
}

TEST(ReadLanes, SlowReadInTurnGivesEachGpuALane) {
  EXPECT_EQ(NextReadLanes(1, kSlowGpuRead + milliseconds(1), 8, 8), 8u);
  EXPECT_EQ(NextReadLanes(1, milliseconds(900), 3, 3), 3u);
}

TEST(ReadLanes, ParallelReadReturnsToOneLaneOnlyWhenTurnsWouldBeFast) {
  // 8 GPUs in 20 ms each in parallel: in turn about 160 ms, under the bound.
  EXPECT_EQ(NextReadLanes(8, milliseconds(20), 8, 8), 1u);
  // 8 GPUs in 40 ms in parallel: in turn about 320 ms, still slow.
  EXPECT_EQ(NextReadLanes(8, milliseconds(40), 8, 8), 8u);
}

TEST(ReadLanes, OneGpuNeedsNoLanes) {
  EXPECT_EQ(NextReadLanes(1, milliseconds(5000), 1, 1), 1u);
  EXPECT_EQ(NextReadLanes(4, milliseconds(5000), 1, 1), 1u);
}

TEST(ReadLanes, ReadOfOneRemainingGpuKeepsTheLanes) {
  // The others are lost or hung: one GPU's read time says nothing of turns.
  EXPECT_EQ(NextReadLanes(1, milliseconds(900), 1, 8), 1u);
  EXPECT_EQ(NextReadLanes(8, milliseconds(1), 1, 8), 8u);
}

TEST(ReadLanes, TheSlowBoundIsAParameter) {
  EXPECT_EQ(NextReadLanes(1, milliseconds(900), 8, 8, milliseconds(1000)), 1u);
  EXPECT_EQ(NextReadLanes(1, milliseconds(900), 8, 8, milliseconds(800)), 8u);
  EXPECT_EQ(NextReadLanes(8, milliseconds(100), 8, 8, milliseconds(1000)), 1u);
}

}  // namespace
}  // namespace gpudoctor
