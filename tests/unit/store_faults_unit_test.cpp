// Store faults the end-to-end tests cannot aim at: a chunk whose bytes are
// damaged while SQLite's pages around it are intact (SQLite keeps no
// checksum of a blob; our zlib stream does).
#include <gtest/gtest.h>

#include <string>

#include "core/time_format.h"
#include "store/store.h"
#include "support/store_damage.h"
#include "support/temp_files.h"
#include "unit/store_samples.h"

namespace gpudoctor {
namespace {

using test::At;
using test::MakeSystem;

// Two ten-minute chunks per GPU (seconds 0-599 and 600-1199) and their
// roll-ups, read-only.
std::unique_ptr<Store> TwoChunksPerGpu(const test::TempDir& dir, bool damage_rollup) {
  StoreOptions options;
  options.data_dir = dir.path().string();
  {
    auto store = test::OpenOrDie(options);
    for (std::int64_t s = 0; s < 1200; ++s)
      EXPECT_TRUE(store->AppendSample(At(s), MakeSystem(2, s)).ok());
    EXPECT_TRUE(store->Flush().ok());
  }
  test::DamageFirstBlob((dir.path() / "gpudoctor.db").string(), test::BusId(0),
                  damage_rollup ? "rollups" : "chunks");
  options.read_only = true;
  return test::OpenOrDie(options);
}

void ExpectNamesFileGpuAndSpan(const std::string& message, const std::string& db) {
  EXPECT_EQ(message.rfind(db + ": the samples of GPU " + test::BusId(0) + " from ", 0), 0u)
      << message;
  EXPECT_NE(message.find(FormatRfc3339(At(0))), std::string::npos) << message;
  EXPECT_NE(message.find(") and left out"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(StoreFaults, DamagedChunkIsLeftOutNamedAndTheRestOfTheWindowReads) {
  test::TempDir dir;
  auto reader = TwoChunksPerGpu(dir, false);
  const std::string db = (dir.path() / "gpudoctor.db").string();

  // The damaged span alone: GPU 0 is absent (no numbers made up), GPU 1 whole.
  auto first = reader->ReadWindow(At(0), At(599), {});
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->damaged.size(), 1u);
  ExpectNamesFileGpuAndSpan(first->damaged[0].message, db);
  EXPECT_EQ(first->damaged[0].pci_bus_id, test::BusId(0));
  EXPECT_EQ(first->damaged[0].index, 0u);
  EXPECT_NE(first->damaged[0].message.find(FormatRfc3339(At(599))), std::string::npos);
  ASSERT_EQ(first->gpus.size(), 1u);
  EXPECT_EQ(first->gpus[0].key, test::BusId(1));
  EXPECT_EQ(first->gpus[0].readings.size(), 600u);
  EXPECT_EQ(first->summaries.count(test::BusId(0)), 0u);

  // Across it: GPU 0 has the undamaged half, with exact summaries of it.
  auto both = reader->ReadWindow(At(0), At(1199), {});
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_EQ(both->damaged.size(), 1u);
  ASSERT_EQ(both->gpus.size(), 2u);
  EXPECT_EQ(both->gpus[0].readings.size(), 600u);
  EXPECT_EQ(both->gpus[0].times.front(), At(600));
  EXPECT_EQ(both->gpus[1].readings.size(), 1200u);
  EXPECT_EQ(both->summaries.at(test::BusId(0)).at("temperature_c").count, 600u);

  // A window after it reads whole and says nothing is damaged.
  auto later = reader->ReadWindow(At(600), At(1199), {});
  ASSERT_TRUE(later.ok()) << later.error().message;
  EXPECT_TRUE(later->damaged.empty());
  ASSERT_EQ(later->gpus.size(), 2u);
  EXPECT_EQ(later->gpus[0].readings.size(), 600u);
}

// A long window reads per-minute roll-ups; a damaged roll-up blob is left
// out the same way, the minutes of the other blob still read.
TEST(StoreFaults, DamagedRollupIsLeftOutInALongWindow) {
  test::TempDir dir;
  auto reader = TwoChunksPerGpu(dir, true);
  auto day = reader->ReadWindow(At(-6 * 3600), At(6 * 3600), {});
  ASSERT_TRUE(day.ok()) << day.error().message;
  EXPECT_TRUE(day->downsampled);
  ASSERT_EQ(day->damaged.size(), 1u);
  ExpectNamesFileGpuAndSpan(day->damaged[0].message, (dir.path() / "gpudoctor.db").string());
  ASSERT_EQ(day->gpus.size(), 2u);
  EXPECT_EQ(day->gpus[1].readings.size(), 20u);  // 20 minutes
  EXPECT_GT(day->gpus[0].readings.size(), 0u);
  EXPECT_LT(day->gpus[0].readings.size(), 20u);
}

}  // namespace
}  // namespace gpudoctor
