// Store: opening (lock, read-only, corrupt or newer files), kill -9 in the
// middle of writing, and a full disk.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "store/store.h"
#include "store/store_sqlite.h"
#include "support/store_damage.h"
#include "support/temp_files.h"
#include "unit/store_samples.h"

namespace gpudoctor {
namespace {

using test::At;
using test::MakeGpu;
using test::MakeSystem;

StoreOptions OptionsFor(const test::TempDir& dir, bool read_only = false) {
  StoreOptions o;
  o.data_dir = dir.path().string();
  o.read_only = read_only;
  return o;
}

std::string DbPath(const test::TempDir& dir) { return (dir.path() / "gpudoctor.db").string(); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string IntegrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  std::string result = "cannot open";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      result = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return result;
}

// Retention frees pages with incremental_vacuum, which does nothing unless
// the file was made with auto_vacuum: SQLite ignores that pragma once
// journal_mode=WAL has written the header, and stores were made without it.
TEST(StoreOpen, ANewStoreIsMadeWithIncrementalAutoVacuum) {
  test::TempDir dir;
  { auto store = test::OpenOrDie(OptionsFor(dir)); }
  EXPECT_EQ(test::QueryInt(DbPath(dir), "PRAGMA auto_vacuum"), 2);  // 2: incremental
}

TEST(StoreOpen, AStoreMadeWithoutAutoVacuumIsRebuiltWithItByTheWriter) {
  test::TempDir dir;
  {
    auto store = test::OpenOrDie(OptionsFor(dir));
    ASSERT_TRUE(store->AppendSample(At(1), MakeSystem(1, 1)).ok());
    ASSERT_TRUE(store->Flush().ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(DbPath(dir).c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA auto_vacuum=NONE; VACUUM;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ASSERT_EQ(test::QueryInt(DbPath(dir), "PRAGMA auto_vacuum"), 0);
  { auto reader = test::OpenOrDie(OptionsFor(dir, true)); }
  EXPECT_EQ(test::QueryInt(DbPath(dir), "PRAGMA auto_vacuum"), 0);  // a reader changes nothing
  { auto writer = test::OpenOrDie(OptionsFor(dir)); }
  EXPECT_EQ(test::QueryInt(DbPath(dir), "PRAGMA auto_vacuum"), 2);
  EXPECT_EQ(IntegrityCheck(DbPath(dir)), "ok");
}

TEST(StoreOpen, SecondWriterIsRefusedNamingThePid) {
  test::TempDir dir;
  auto first = test::OpenOrDie(OptionsFor(dir));
  auto second = Store::Open(OptionsFor(dir));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message, (dir.path() / "agent.lock").string() +
                                        ": another gpudoctor agent (pid " +
                                        std::to_string(getpid()) + ") is writing to this store");
  // Readers are welcome while the writer holds the lock.
  ASSERT_TRUE(first->AppendSample(At(0), MakeSystem(1, 0)).ok());
  auto reader = Store::Open(OptionsFor(dir, true));
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  auto w = (*reader)->ReadWindow(At(0), At(10), {});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->gpus.size(), 1u);
  // Once the writer is gone, the next one gets the lock.
  first.reset();
  EXPECT_TRUE(Store::Open(OptionsFor(dir)).ok());
}

TEST(StoreOpen, ReadOnlyOfAMissingStoreNamesItAndCreatesNothing) {
  test::TempDir dir;
  auto store = Store::Open(OptionsFor(dir, true));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store.error().message.rfind(DbPath(dir) + ": ", 0), 0u) << store.error().message;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(StoreOpen, GarbageFileIsAnErrorAndIsLeftAlone) {
  test::TempDir dir;
  std::string garbage(8192, '\0');
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 131 + 7);
  dir.Write("gpudoctor.db", garbage);
  for (bool read_only : {false, true}) {
    auto store = Store::Open(OptionsFor(dir, read_only));
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.error().code, ErrorCode::kCorrupt);
    EXPECT_EQ(store.error().message.rfind(DbPath(dir) + ": ", 0), 0u) << store.error().message;
    EXPECT_EQ(store.error().message.find('\n'), std::string::npos);
  }
  EXPECT_EQ(ReadFile(DbPath(dir)), garbage);
}

TEST(StoreOpen, NewerSchemaIsRefused) {
  test::TempDir dir;
  { test::OpenOrDie(OptionsFor(dir)); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(DbPath(dir).c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = Store::Open(OptionsFor(dir));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, ErrorCode::kNotSupported);
  EXPECT_NE(store.error().message.find("newer gpudoctor"), std::string::npos);
  EXPECT_EQ(store.error().message.rfind(DbPath(dir), 0), 0u);
}

KernelEvent GspEvent(int second) {
  KernelEvent e;
  e.kind = KernelEventKind::kGspTimeout;
  e.time = At(second);
  e.gpu_number = 4;  // "GPU4 _kgspRpcGspEventPmuHalted": no bus id in the line
  e.message = "GPU4 GSP Timeout";
  e.detail = "GSP Timeout";
  return e;
}

// Schema 2 keeps the driver's GPU number of an event; a schema-1 store (no
// such column) is read as it is, and upgraded in place by the next writer.
TEST(StoreOpen, EventGpuNumberAndTheUpgradeFromSchemaOne) {
  test::TempDir dir;
  {
    auto store = test::OpenOrDie(OptionsFor(dir));
    ASSERT_TRUE(store->AppendEvent(GspEvent(1)).ok());
    auto w = store->ReadWindow(At(0), At(10), {});
    ASSERT_TRUE(w.ok());
    ASSERT_EQ(w->events.size(), 1u);
    EXPECT_EQ(w->events[0].gpu_number, 4);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(DbPath(dir).c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE events DROP COLUMN gpu_number; PRAGMA user_version=1",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  {
    auto reader = Store::Open(OptionsFor(dir, true));
    ASSERT_TRUE(reader.ok()) << reader.error().message;
    auto w = (*reader)->ReadWindow(At(0), At(10), {});
    ASSERT_TRUE(w.ok()) << w.error().message;
    ASSERT_EQ(w->events.size(), 1u);
    EXPECT_FALSE(w->events[0].gpu_number.has_value());
    EXPECT_EQ(w->events[0].detail, "GSP Timeout");
  }
  {
    auto store = test::OpenOrDie(OptionsFor(dir));
    ASSERT_TRUE(store->AppendEvent(GspEvent(2)).ok());
    auto w = store->ReadWindow(At(0), At(10), {});
    ASSERT_TRUE(w.ok());
    ASSERT_EQ(w->events.size(), 2u);
    EXPECT_FALSE(w->events[0].gpu_number.has_value());
    EXPECT_EQ(w->events[1].gpu_number, 4);
  }
  ASSERT_EQ(sqlite3_open(DbPath(dir).c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), kStoreSchemaVersion);  // upgraded to the newest schema
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

// Schema 4 keeps each finding interval's strictest recovery action; a
// schema-3 store (no such column) reads as not recorded, and the next writer
// upgrades it in place.
TEST(StoreOpen, FindingActionsAndTheUpgradeFromSchemaThree) {
  test::TempDir dir;
  FindingInterval lost;
  lost.finding_id = "gpu.lost";
  lost.severity = Severity::kCritical;
  lost.gpus = {"0000:18:00.0"};
  lost.title = {"GPU lost", "GPU 丢失"};
  {
    auto store = test::OpenOrDie(OptionsFor(dir));
    lost.recommended = RecoveryAction::kResetGpu;
    ASSERT_TRUE(store->FindingSeen(lost, At(1)).ok());
    lost.recommended = RecoveryAction::kRebootNode;  // stricter: kept
    ASSERT_TRUE(store->FindingSeen(lost, At(2)).ok());
    lost.recommended = RecoveryAction::kNone;  // less strict: the stricter stays
    ASSERT_TRUE(store->FindingSeen(lost, At(3)).ok());
    auto w = store->ReadWindow(At(0), At(10), {});
    ASSERT_TRUE(w.ok());
    ASSERT_EQ(w->timeline.findings.size(), 1u);
    EXPECT_EQ(w->timeline.findings[0].recommended, RecoveryAction::kRebootNode);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(DbPath(dir).c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE findings DROP COLUMN action; PRAGMA user_version=3",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  {
    auto reader = Store::Open(OptionsFor(dir, true));
    ASSERT_TRUE(reader.ok()) << reader.error().message;
    auto w = (*reader)->ReadWindow(At(0), At(10), {});
    ASSERT_TRUE(w.ok()) << w.error().message;
    ASSERT_EQ(w->timeline.findings.size(), 1u);
    EXPECT_FALSE(w->timeline.findings[0].recommended.has_value());
  }
  {
    auto store = test::OpenOrDie(OptionsFor(dir));
    lost.recommended = RecoveryAction::kHardwareInspection;
    ASSERT_TRUE(store->FindingSeen(lost, At(4)).ok());
    auto w = store->ReadWindow(At(0), At(10), {});
    ASSERT_TRUE(w.ok()) << w.error().message;
    ASSERT_EQ(w->timeline.findings.size(), 1u);
    EXPECT_EQ(w->timeline.findings[0].recommended, RecoveryAction::kHardwareInspection);
  }
  // Set back by hand with the column still there: the writer upgrades anyway.
  ASSERT_EQ(sqlite3_open(DbPath(dir).c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version=3", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto again = Store::Open(OptionsFor(dir));
  ASSERT_TRUE(again.ok()) << again.error().message;
}

// A child appends samples forever and reports each committed second on a
// pipe; the parent kills it with SIGKILL mid-write, several times over the
// same store, and checks the store after each.
TEST(StoreDurability, KillNineWhileWritingLosesNothingCommitted) {
  test::TempDir dir;
  std::int64_t next_second = 0;
  for (int round = 0; round < 3; ++round) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      auto store = Store::Open(OptionsFor(dir));
      if (!store.ok()) _exit(3);
      for (std::int64_t s = next_second;; ++s) {
        if (!(*store)->AppendSample(At(s), MakeSystem(4, s)).ok()) _exit(4);
        if (write(fds[1], &s, sizeof s) != sizeof s) _exit(5);
      }
    }
    close(fds[1]);
    // Past a chunk seal (600 s) in the first round; a varying point later.
    std::int64_t wanted = next_second + 650 + round * 37;
    std::int64_t committed = -1;
    while (committed < wanted) {
      ASSERT_EQ(read(fds[0], &committed, sizeof committed), static_cast<ssize_t>(sizeof committed));
    }
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(status));

    EXPECT_EQ(IntegrityCheck(DbPath(dir)), "ok");
    auto store = Store::Open(OptionsFor(dir));
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto w = (*store)->ReadWindow(At(0), At(committed + 10), {});
    ASSERT_TRUE(w.ok()) << w.error().message;
    ASSERT_EQ(w->gpus.size(), 4u);
    for (const GpuSeries& series : w->gpus) {
      // Every reported sample is there (the child may have committed a few
      // more before the signal landed), in order, without gaps.
      ASSERT_GE(series.readings.size(), static_cast<std::size_t>(committed + 1));
      for (std::size_t s = 0; s < series.times.size(); ++s) ASSERT_EQ(series.times[s], At(s));
      for (std::int64_t s = 0; s <= committed; s += 97) {
        ASSERT_EQ(test::CellsOf(series.readings[s]),
                  test::CellsOf(MakeGpu(series.readings[s].index, s)));
      }
    }
    next_second = static_cast<std::int64_t>(w->gpus[0].readings.size());
  }
}

TEST(StoreDurability, FullDiskStopsWritesButKeepsServing) {
  test::TempDir dir;
  StoreOptions options = OptionsFor(dir);
  options.max_pages = 120;  // SQLITE_FULL after about 480 KB
  auto store = test::OpenOrDie(options);
  std::int64_t s = 0;
  Status r;
  for (; s < 100'000 && r.ok(); ++s) r = store->AppendSample(At(s), MakeSystem(8, s));
  ASSERT_FALSE(r.ok()) << "the page limit never hit";
  EXPECT_EQ(r.error().code, ErrorCode::kIo);
  std::int64_t failed_at = s - 1;
  StoreStats stats = store->Stats();
  EXPECT_TRUE(stats.writes_stopped);
  EXPECT_NE(stats.last_error.find("full"), std::string::npos) << stats.last_error;
  EXPECT_EQ(stats.last_error.find('\n'), std::string::npos);
  // Still serving what it has, and still refusing (not crashing) writes.
  auto w = store->ReadWindow(At(0), At(failed_at), {});
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_EQ(w->gpus.size(), 8u);
  EXPECT_EQ(w->gpus[0].readings.size(), static_cast<std::size_t>(failed_at));
  EXPECT_FALSE(store->AppendSample(At(failed_at + 1), MakeSystem(8, failed_at + 1)).ok());
  EXPECT_TRUE(store->Stats().writes_stopped);
  store.reset();
  // With room again, nothing recorded was lost and writing resumes.
  auto again = test::OpenOrDie(OptionsFor(dir));
  ASSERT_TRUE(again->AppendSample(At(failed_at + 100), MakeSystem(8, failed_at + 100)).ok());
  auto after = again->ReadWindow(At(0), At(failed_at + 100), {});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->gpus[0].readings.size(), static_cast<std::size_t>(failed_at + 1));
  EXPECT_FALSE(again->Stats().writes_stopped);
}

}  // namespace
}  // namespace gpudoctor
