// Small RAII wrappers over the SQLite C API: a connection and a prepared
// statement. Errors come back as values whose message names the database
// file, so a caller can pass them straight up.
//
// Thread-safety: one Db and its statements belong to one thread.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

class Db;

// One prepared statement. Bind with 1-based indexes, then Step() until it
// returns false (done) or an error; Reset() before running it again.
class Statement {
 public:
  Statement() = default;
  Statement(Db* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& Bind(int index, std::int64_t value);
  Statement& Bind(int index, double value);
  Statement& Bind(int index, std::string_view text);
  Statement& BindBlob(int index, std::string_view bytes);
  Statement& BindNull(int index);
  Statement& Bind(int index, const std::optional<std::int64_t>& value);

  // True when a row is available, false when done.
  Result<bool> Step();
  // Runs to completion (for statements that return no rows).
  Status Run();
  // Calls f() -> Status for each row until the end or f's first error;
  // resets the statement either way.
  template <typename F>
  Status ForEachRow(F&& f) {
    for (;;) {
      auto row = Step();
      Status r = !row ? Status(row.error()) : *row ? f() : OkStatus();
      if (!r || !*row) {
        Reset();
        return r;
      }
    }
  }
  void Reset();

  bool IsNull(int column) const;
  std::int64_t Int(int column) const;
  double Real(int column) const;
  std::string Text(int column) const;
  std::string_view Blob(int column) const;  // valid until the next Step/Reset
  std::optional<std::int64_t> OptionalInt(int column) const;

 private:
  Db* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

class Db {
 public:
  // Opens path; read-only never creates the file. The error names the path.
  // `immutable` (read-only only): read the file as it is, with no locks and
  // no WAL index, for a directory nobody can write to.
  static Result<std::unique_ptr<Db>> Open(const std::string& path, bool read_only,
                                          bool immutable = false);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  Result<Statement> Prepare(std::string_view sql);
  // A statement prepared once and kept for the connection's life; reset it
  // (Run does) before the next use.
  Result<Statement*> Cached(const std::string& sql);
  // Runs one or more statements that return no rows.
  Status Exec(const std::string& sql);
  // The first column of the first row of a query, as an integer.
  Result<std::int64_t> QueryInt(std::string_view sql);

  // "<path>: <what>: <sqlite message>" with a category from the SQLite code.
  Error MakeError(int rc, std::string_view what) const;
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }
  std::int64_t changes() const;

 private:
  Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
  std::map<std::string, Statement> cache_;  // destroyed before db_ is closed
};

// True for errors that mean "the disk is full or failing" (SQLITE_FULL,
// SQLITE_IOERR*), carried as ErrorCode::kIo.
bool IsDiskError(int sqlite_rc);

}  // namespace gpudoctor
