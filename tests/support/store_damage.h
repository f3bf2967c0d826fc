// The store's SQLite file seen from outside in tests: a value read back
// (QueryInt), and damage SQLite cannot notice, the bytes of one stored blob
// (SQLite keeps no checksum of a blob; the store's zlib streams do).
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace gpudoctor::test {

// The first column of the first row `sql` gives on the database at
// `db_path` (a PRAGMA, a count), read-only; -1 when it cannot be read.
inline std::int64_t QueryInt(const std::string& db_path, const char* sql) {
  sqlite3* db = nullptr;
  std::int64_t v = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      v = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return v;
}

// Overwrites the middle of the first blob of `table` ("chunks" or
// "rollups") of the GPU at `bus_id`.
inline void DamageFirstBlob(const std::string& db_path, const std::string& bus_id,
                            const std::string& table = "chunks") {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  const std::string select = "SELECT rowid, blob FROM " + table +
                             " WHERE gpu=(SELECT id FROM gpus WHERE bus_id=?) "
                             "ORDER BY t_start LIMIT 1";
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, select.c_str(), -1, &stmt, nullptr), SQLITE_OK);
  sqlite3_bind_text(stmt, 1, bus_id.c_str(), -1, SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  sqlite3_int64 rowid = sqlite3_column_int64(stmt, 0);
  std::string blob(static_cast<const char*>(sqlite3_column_blob(stmt, 1)),
                   static_cast<std::size_t>(sqlite3_column_bytes(stmt, 1)));
  sqlite3_finalize(stmt);
  ASSERT_GT(blob.size(), 16u);
  for (std::size_t i = blob.size() / 2; i < blob.size() / 2 + 8; ++i)
    blob[i] = static_cast<char>(~blob[i]);
  const std::string update = "UPDATE " + table + " SET blob=? WHERE rowid=?";
  ASSERT_EQ(sqlite3_prepare_v2(db, update.c_str(), -1, &stmt, nullptr), SQLITE_OK);
  sqlite3_bind_blob(stmt, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(stmt, 2, rowid);
  EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

}  // namespace gpudoctor::test
