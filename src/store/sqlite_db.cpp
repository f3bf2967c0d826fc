#include "store/sqlite_db.h"

#include <memory>
#include <string>
#include <utility>

#include "core/utf8.h"

namespace gpudoctor {

namespace {

ErrorCode CodeOf(int rc) {
  switch (rc & 0xff) {
    case SQLITE_CANTOPEN:
      return ErrorCode::kNotFound;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return ErrorCode::kPermission;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return ErrorCode::kCorrupt;
    case SQLITE_FULL:
    case SQLITE_IOERR:
      return ErrorCode::kIo;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return ErrorCode::kTimeout;
    default:
      return ErrorCode::kUnknown;
  }
}

}  // namespace

bool IsDiskError(int sqlite_rc) {
  int primary = sqlite_rc & 0xff;
  return primary == SQLITE_FULL || primary == SQLITE_IOERR;
}

Statement::~Statement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

Statement& Statement::Bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view text) {
  // A TEXT column holds UTF-8: outside bytes that are not are stored as
  // U+FFFD, the way every output renders them (core/utf8.h).
  const std::string valid = ToValidUtf8(text);
  sqlite3_bind_text(stmt_, index, valid.data(), static_cast<int>(valid.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindBlob(int index, std::string_view bytes) {
  sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Statement& Statement::Bind(int index, const std::optional<std::int64_t>& value) {
  return value ? Bind(index, *value) : BindNull(index);
}

Result<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Error e = db_->MakeError(rc, "query failed");
  sqlite3_reset(stmt_);
  return e;
}

Status Statement::Run() {
  for (;;) {
    auto row = Step();
    if (!row) return row.error();
    if (!*row) break;
  }
  Reset();
  return OkStatus();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::Real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::Text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::string_view Statement::Blob(int column) const {
  const void* p = sqlite3_column_blob(stmt_, column);
  if (p == nullptr) return {};
  return std::string_view(static_cast<const char*>(p),
                          static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::optional<std::int64_t> Statement::OptionalInt(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Int(column);
}

Result<std::unique_ptr<Db>> Db::Open(const std::string& path, bool read_only, bool immutable) {
  sqlite3* handle = nullptr;
  int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  std::string name = path;
  if (read_only && immutable) {
    name = "file:";
    for (char c : path) {
      if (c == '%' || c == '?' || c == '#') {
        static constexpr char kHex[] = "0123456789abcdef";
        name += {'%', kHex[(c >> 4) & 0xf], kHex[c & 0xf]};
      } else {
        name += c;
      }
    }
    name += "?immutable=1";
    flags |= SQLITE_OPEN_URI;
  }
  int rc = sqlite3_open_v2(name.c_str(), &handle, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<Db> db(new Db(handle, path));
  if (rc != SQLITE_OK) return db->MakeError(rc, "cannot open");
  sqlite3_extended_result_codes(handle, 1);
  sqlite3_busy_timeout(handle, 5000);
  return db;
}

Db::~Db() {
  cache_.clear();
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

Result<Statement> Db::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return MakeError(rc, "cannot prepare");
  return Statement(this, stmt);
}

Result<Statement*> Db::Cached(const std::string& sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    auto stmt = Prepare(sql);
    if (!stmt) return stmt.error();
    it = cache_.emplace(sql, std::move(*stmt)).first;
  }
  return &it->second;
}

Status Db::Exec(const std::string& sql) {
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return MakeError(rc, "write failed");
  return OkStatus();
}

Result<std::int64_t> Db::QueryInt(std::string_view sql) {
  auto stmt = Prepare(sql);
  if (!stmt) return stmt.error();
  auto row = stmt->Step();
  if (!row) return row.error();
  return *row ? stmt->Int(0) : 0;
}

Error Db::MakeError(int rc, std::string_view what) const {
  std::string detail = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  return Error{CodeOf(rc), path_ + ": " + std::string(what) + ": " + detail};
}

std::int64_t Db::changes() const { return sqlite3_changes64(db_); }

}  // namespace gpudoctor
