// EncodeRow: the agent's one-row fast path must give exactly the bytes the
// general path (ColumnSetBuilder + EncodeColumnSet) gives for the same row.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "store/chunk_codec.h"
#include "store/sample_codec.h"
#include "unit/store_samples.h"

namespace gpudoctor {
namespace {

std::string ThroughBuilder(std::int64_t time_ms, const std::vector<NamedCell>& cells, int level) {
  ColumnSetBuilder builder;
  builder.AddRow(time_ms, cells);
  auto blob = EncodeColumnSet(builder.Take(), level);
  EXPECT_TRUE(blob.ok());
  return blob.ok() ? *blob : std::string();
}

std::vector<NamedCell> EdgeCells() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  return {
      {"zero", std::int64_t{0}},
      {"negative", std::int64_t{-42}},
      {"max", std::numeric_limits<std::int64_t>::max()},
      {"min", std::numeric_limits<std::int64_t>::min()},
      {"decimal", 612.125},
      {"six_places", 0.000001},
      {"seven_places", 0.0000001},
      {"negative_zero", -0.0},
      {"huge", 1.0e300},
      {"nan", nan},
      {"inf", -inf},
      {"whole_real", 700.0},
      {"empty_text", std::string()},
      {"text", std::string("NVIDIA H100 80GB HBM3")},
      {"long_text", std::string(300, 'x')},
  };
}

TEST(EncodeRow, SameBytesAsTheBuilderForEdgeValues) {
  const std::vector<NamedCell> cells = EdgeCells();
  for (int level : {0, 1, 9}) {
    for (std::int64_t t : {std::int64_t{0}, std::int64_t{1'700'000'000'123}, std::int64_t{-5}}) {
      EXPECT_EQ(EncodeRow(t, cells, level), ThroughBuilder(t, cells, level))
          << "level " << level << " time " << t;
    }
  }
}

TEST(EncodeRow, SameBytesAsTheBuilderForReadings) {
  std::vector<NamedCell> cells;
  for (unsigned gpu = 0; gpu < 3; ++gpu) {
    for (std::int64_t second : {0, 7, 301, 3001}) {
      cells.clear();
      StatusToCells(test::MakeGpu(gpu, second), cells);
      const std::int64_t t = 1'700'000'000'000 + second * 1000;
      EXPECT_EQ(EncodeRow(t, cells, 1), ThroughBuilder(t, cells, 1))
          << "GPU " << gpu << " second " << second;
    }
  }
}

TEST(EncodeRow, EmptyRowDecodes) {
  auto set = DecodeColumnSet(EncodeRow(123, {}, 1));
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->times_ms, std::vector<std::int64_t>{123});
  EXPECT_TRUE(set->columns.empty());
}

TEST(EncodeRow, ReadingRoundTrips) {
  const GpuStatus gpu = test::MakeGpu(2, 7);  // with processes off, a field error on
  std::vector<NamedCell> cells;
  StatusToCells(gpu, cells);
  auto set = DecodeColumnSet(EncodeRow(42'000, cells, 1));
  ASSERT_TRUE(set.ok()) << set.error().message;
  std::vector<GpuStatus> back = DecodeSamples(*set);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(test::CellsOf(back[0]), test::CellsOf(gpu));
}

// A GPU in MIG mode: its MIG devices (ids, uuid, memory, GPM) come back
// from the store as they went in; a row without them decodes to none.
TEST(EncodeRow, MigDevicesRoundTrip) {
  GpuStatus gpu = test::MakeGpu(0, 3);
  gpu.mig_mode_enabled = true;
  for (unsigned i = 0; i < 3; ++i) {
    MigDeviceStatus m;
    m.gpu_instance_id = i == 0 ? 1 : 2;
    if (i != 1) m.compute_instance_id = i;
    m.status.index = i;
    m.status.uuid = "MIG-" + std::to_string(i);
    m.status.memory_total_bytes = std::int64_t{10} << 30;
    m.status.memory_used_bytes = std::int64_t{i} << 30;
    m.status.gpm_sm_activity_percent = 12.5 * (i + 1);
    gpu.mig_devices.push_back(m);
  }
  std::vector<NamedCell> cells;
  StatusToCells(gpu, cells);
  auto set = DecodeColumnSet(EncodeRow(42'000, cells, 1));
  ASSERT_TRUE(set.ok()) << set.error().message;
  std::vector<GpuStatus> back = DecodeSamples(*set);
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].mig_devices.size(), 3u);
  for (unsigned i = 0; i < 3; ++i) {
    const MigDeviceStatus& m = back[0].mig_devices[i];
    EXPECT_EQ(m.gpu_instance_id, gpu.mig_devices[i].gpu_instance_id);
    EXPECT_EQ(m.compute_instance_id, gpu.mig_devices[i].compute_instance_id);
    EXPECT_EQ(m.status.uuid, "MIG-" + std::to_string(i));
    EXPECT_EQ(m.status.memory_total_bytes, std::int64_t{10} << 30);
    EXPECT_EQ(m.status.memory_used_bytes, std::int64_t{i} << 30);
    EXPECT_EQ(m.status.gpm_sm_activity_percent, 12.5 * (i + 1));
    EXPECT_FALSE(m.status.gpm_tensor_activity_percent.has_value());
  }
  EXPECT_EQ(test::CellsOf(back[0]), test::CellsOf(gpu));
  // Two rows of one chunk, the second without MIG devices: none for it.
  ColumnSetBuilder builder;
  builder.AddRow(1000, cells);
  std::vector<NamedCell> plain;
  StatusToCells(test::MakeGpu(0, 4), plain);
  builder.AddRow(2000, plain);
  auto two = DecodeSamples(builder.Take());
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].mig_devices.size(), 3u);
  EXPECT_TRUE(two[1].mig_devices.empty());
}

// EncodeRow's precondition: StatusToCells never repeats a name.
TEST(EncodeRow, StatusToCellsNamesAreDistinct) {
  for (std::int64_t second : {0, 7, 301}) {
    std::vector<NamedCell> cells;
    StatusToCells(test::MakeGpu(1, second), cells);
    std::set<std::string> names;
    for (const NamedCell& c : cells) EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_GT(names.size(), 20u);
  }
}

}  // namespace
}  // namespace gpudoctor
