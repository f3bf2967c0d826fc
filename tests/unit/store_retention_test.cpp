// Store: retention and roll-ups over a store filled with weeks of synthetic
// history, and the size bound.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/store.h"
#include "support/store_damage.h"
#include "support/temp_files.h"
#include "unit/store_samples.h"

namespace gpudoctor {
namespace {

using test::At;
using test::MakeSystem;
using test::QueryInt;

constexpr std::int64_t kDay = 86'400;

TEST(StoreRetention, RawForNDaysRollupsForMDays) {
  test::TempDir dir;
  StoreOptions options;
  options.data_dir = dir.path().string();
  options.raw_retention_days = 3;
  options.rollup_retention_days = 6;
  auto store = test::OpenOrDie(options);
  // Eight days, one sample of two GPUs every 2 min (few enough to stay quick
  // under ASan on a loaded machine); a finding and an event early on.
  FindingInterval f;
  f.finding_id = "thermal.slowdown";
  f.gpus = {test::BusId(0)};
  ASSERT_TRUE(store->FindingSeen(f, At(60)).ok());
  ASSERT_TRUE(store->FindingCleared(f.finding_id, f.gpus, At(120)).ok());
  KernelEvent e;
  e.time = At(90);
  e.code = 79;
  ASSERT_TRUE(store->AppendEvent(e).ok());
  const std::int64_t end = 8 * kDay;
  constexpr std::int64_t kStep = 120;
  for (std::int64_t s = 0; s <= end; s += kStep) {
    ASSERT_TRUE(store->AppendSample(At(s), MakeSystem(2, s)).ok());
  }
  StoreStats stats = store->Stats();
  EXPECT_FALSE(stats.writes_stopped);
  EXPECT_EQ(stats.last_error, "");
  // Raw samples are gone before now - 3 days (give or take a chunk): a
  // short window there (raw, not per minute) finds nothing.
  auto raw = store->ReadWindow(At(end - 3 * kDay - 7200), At(end - 3 * kDay - 1200), {});
  ASSERT_TRUE(raw.ok());
  EXPECT_FALSE(raw->downsampled);
  EXPECT_TRUE(raw->gpus.empty());
  auto recent = store->ReadWindow(At(end - 3 * kDay + 1200), At(end - 3 * kDay + 3000), {});
  ASSERT_TRUE(recent.ok());
  ASSERT_EQ(recent->gpus.size(), 2u);
  EXPECT_EQ(recent->gpus[0].readings.size(), 1800u / kStep + 1);
  // Roll-ups reach back 6 days, not 7.
  auto day5 = store->ReadWindow(At(end - 5 * kDay), At(end - 4 * kDay), {});
  ASSERT_TRUE(day5.ok());
  EXPECT_TRUE(day5->downsampled);
  ASSERT_EQ(day5->gpus.size(), 2u);
  EXPECT_EQ(day5->gpus[0].readings.size(), 1440u / (kStep / 60));  // minutes with a sample
  EXPECT_EQ(day5->summaries.at(test::BusId(0)).at("temperature_c").count, 86400u / kStep);
  auto day7 = store->ReadWindow(At(end - 7 * kDay), At(end - 6 * kDay - 3600), {});
  ASSERT_TRUE(day7.ok());
  EXPECT_TRUE(day7->gpus.empty());
  // Old findings and events went with the roll-ups.
  EXPECT_EQ(stats.events, 0);
  EXPECT_EQ(stats.finding_intervals, 0);
  // Give or take a ten-minute chunk.
  EXPECT_LE(stats.raw_samples, 2 * (3 * kDay / kStep + 600 / kStep));
  EXPECT_GE(stats.raw_samples, 2 * (3 * kDay / kStep - 600 / kStep));
  ASSERT_TRUE(stats.oldest.has_value());
  EXPECT_GE(*stats.oldest, At(end - 6 * kDay - 3600));
  EXPECT_EQ(stats.newest, At(end));
  // Whole past days of roll-ups are compacted to one row per GPU.
  std::string db = (dir.path() / "gpudoctor.db").string();
  EXPECT_EQ(QueryInt(db.c_str(),
                     "SELECT max(c) FROM (SELECT count(*) AS c FROM rollups "
                     "WHERE t_end < (SELECT max(t_end) FROM rollups) - 86400000 "
                     "GROUP BY gpu, t_start / 86400000)"),
            1);
}

TEST(StoreRetention, SizeBoundDropsOldestFirstAndReports) {
  test::TempDir dir;
  StoreOptions options;
  options.data_dir = dir.path().string();
  options.max_store_bytes = 256 * 1024;
  auto store = test::OpenOrDie(options);
  const std::int64_t end = 2 * kDay;
  for (std::int64_t s = 0; s <= end; s += 40) {
    ASSERT_TRUE(store->AppendSample(At(s), MakeSystem(4, s)).ok()) << s;
  }
  StoreStats stats = store->Stats();
  EXPECT_LE(stats.file_bytes, options.max_store_bytes);
  EXPECT_FALSE(stats.writes_stopped) << stats.last_error;
  ASSERT_TRUE(stats.oldest.has_value());
  EXPECT_GT(*stats.oldest, At(0));  // the oldest went first
  EXPECT_EQ(stats.newest, At(end));
  auto latest = store->ReadWindow(At(end - 600), At(end), {});
  ASSERT_TRUE(latest.ok());
  ASSERT_EQ(latest->gpus.size(), 4u);
  EXPECT_EQ(latest->gpus[0].readings.size(), 16u);
}

TEST(StoreRetention, SizeBoundTooSmallStopsWritesAndSaysSo) {
  test::TempDir dir;
  StoreOptions options;
  options.data_dir = dir.path().string();
  options.max_store_bytes = 16 * 1024;  // less than the empty schema
  auto store = test::OpenOrDie(options);
  ASSERT_TRUE(store->AppendSample(At(0), MakeSystem(2, 0)).ok());
  StoreStats stats = store->Stats();
  EXPECT_TRUE(stats.writes_stopped);
  EXPECT_NE(stats.last_error.find("--max-store-mb"), std::string::npos) << stats.last_error;
  auto next = store->AppendSample(At(1), MakeSystem(2, 1));
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.error().message, stats.last_error);
  // Nothing recorded is lost: the pending sample reads back.
  auto w = store->ReadWindow(At(0), At(5), {});
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->gpus.size(), 2u);
  EXPECT_EQ(w->gpus[0].readings.size(), 1u);
}

}  // namespace
}  // namespace gpudoctor
