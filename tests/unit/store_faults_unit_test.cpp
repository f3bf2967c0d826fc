// Store faults the end-to-end tests cannot aim at: a chunk whose bytes are
// damaged while SQLite's pages around it are intact (SQLite keeps no
// checksum of a blob; our zlib stream does).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "core/time_format.h"
#include "store/store.h"
#include "support/temp_files.h"
#include "unit/store_samples.h"

namespace gpudoctor {
namespace {

using test::At;
using test::MakeSystem;

// Overwrites the middle of the first chunk of the GPU at `bus_id`.
void DamageFirstChunk(const std::string& db_path, const std::string& bus_id) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  const char* select =
      "SELECT rowid, blob FROM chunks WHERE gpu=(SELECT id FROM gpus WHERE bus_id=?) "
      "ORDER BY t_start LIMIT 1";
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, select, -1, &stmt, nullptr), SQLITE_OK);
  sqlite3_bind_text(stmt, 1, bus_id.c_str(), -1, SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  sqlite3_int64 rowid = sqlite3_column_int64(stmt, 0);
  std::string blob(static_cast<const char*>(sqlite3_column_blob(stmt, 1)),
                   static_cast<std::size_t>(sqlite3_column_bytes(stmt, 1)));
  sqlite3_finalize(stmt);
  ASSERT_GT(blob.size(), 16u);
  for (std::size_t i = blob.size() / 2; i < blob.size() / 2 + 8; ++i)
    blob[i] = static_cast<char>(~blob[i]);
  ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE chunks SET blob=? WHERE rowid=?", -1, &stmt, nullptr),
            SQLITE_OK);
  sqlite3_bind_blob(stmt, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(stmt, 2, rowid);
  EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST(StoreFaults, DamagedChunkNamesTheFileGpuAndSpanAndOtherWindowsStillRead) {
  test::TempDir dir;
  StoreOptions options;
  options.data_dir = dir.path().string();
  {
    auto store = test::OpenOrDie(options);
    // Two ten-minute chunks per GPU: seconds 0-599 and 600-1199.
    for (std::int64_t s = 0; s < 1200; ++s)
      ASSERT_TRUE(store->AppendSample(At(s), MakeSystem(2, s)).ok());
    ASSERT_TRUE(store->Flush().ok());
  }
  const std::string db = (dir.path() / "gpudoctor.db").string();
  DamageFirstChunk(db, test::BusId(0));
  options.read_only = true;
  auto reader = test::OpenOrDie(options);

  auto damaged = reader->ReadWindow(At(0), At(599), {});
  ASSERT_FALSE(damaged.ok()) << "damaged samples must not come back as numbers";
  const std::string& message = damaged.error().message;
  EXPECT_EQ(damaged.error().code, ErrorCode::kCorrupt);
  EXPECT_EQ(message.rfind(db + ": ", 0), 0u) << message;
  EXPECT_NE(message.find("GPU " + test::BusId(0)), std::string::npos) << message;
  EXPECT_NE(message.find(FormatRfc3339(At(0))), std::string::npos) << message;
  EXPECT_NE(message.find(FormatRfc3339(At(599))), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;

  // The other GPU, and a window after the damaged chunk, read whole.
  auto other_gpu = reader->ReadWindow(At(0), At(599), {test::BusId(1)});
  ASSERT_TRUE(other_gpu.ok()) << other_gpu.error().message;
  ASSERT_EQ(other_gpu->gpus.size(), 1u);
  EXPECT_EQ(other_gpu->gpus[0].readings.size(), 600u);
  auto later = reader->ReadWindow(At(600), At(1199), {});
  ASSERT_TRUE(later.ok()) << later.error().message;
  ASSERT_EQ(later->gpus.size(), 2u);
  EXPECT_EQ(later->gpus[0].readings.size(), 600u);
}

}  // namespace
}  // namespace gpudoctor
