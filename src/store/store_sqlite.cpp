#include "store/store_sqlite.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/gpu_key.h"
#include "store/sample_codec.h"
#include "store/store_lock.h"

namespace gpudoctor {

namespace {

constexpr std::int64_t kMaxChunkSamples = 1200;

constexpr const char* kSchema = R"sql(
CREATE TABLE gpus(id INTEGER PRIMARY KEY, bus_id TEXT NOT NULL UNIQUE, gpu_index INTEGER,
                  name TEXT, uuid TEXT, serial TEXT);
CREATE TABLE pending(gpu INTEGER NOT NULL, t_ms INTEGER NOT NULL, blob BLOB NOT NULL);
CREATE UNIQUE INDEX pending_by_time ON pending(gpu, t_ms);
CREATE TABLE chunks(gpu INTEGER NOT NULL, t_start INTEGER NOT NULL, t_end INTEGER NOT NULL,
                    n INTEGER NOT NULL, blob BLOB NOT NULL);
CREATE INDEX chunks_by_time ON chunks(gpu, t_end);
CREATE TABLE rollups(gpu INTEGER NOT NULL, t_start INTEGER NOT NULL, t_end INTEGER NOT NULL,
                     minutes INTEGER NOT NULL, blob BLOB NOT NULL);
CREATE INDEX rollups_by_time ON rollups(gpu, t_end);
CREATE TABLE events(id INTEGER PRIMARY KEY, t_ms INTEGER NOT NULL, time_known INTEGER NOT NULL,
                    kind TEXT NOT NULL, code INTEGER, bus_id TEXT, pid INTEGER, process TEXT,
                    message TEXT, continuation TEXT, count INTEGER, last_t_ms INTEGER,
                    monotonic_s REAL, last_monotonic_s REAL, source_file TEXT,
                    source_line INTEGER, detail TEXT, gpu_number INTEGER);
CREATE INDEX events_by_time ON events(t_ms);
CREATE TABLE findings(id INTEGER PRIMARY KEY, finding_id TEXT NOT NULL, gpus TEXT NOT NULL,
                      severity INTEGER NOT NULL, title_en TEXT, title_zh TEXT,
                      start_ms INTEGER NOT NULL, end_ms INTEGER, action INTEGER);
CREATE INDEX findings_open ON findings(finding_id, gpus, end_ms);
CREATE INDEX findings_by_end ON findings(end_ms);
)sql";

// Version 3: the RDMA port readings, one row per reading of every port.
// "IF NOT EXISTS": a store whose version was set back by hand may hold them.
constexpr const char* kRdmaSchema = R"sql(
CREATE TABLE IF NOT EXISTS rdma_pending(t_ms INTEGER PRIMARY KEY, blob BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS rdma_chunks(t_start INTEGER NOT NULL, t_end INTEGER NOT NULL,
                                       n INTEGER NOT NULL, blob BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS rdma_chunks_by_time ON rdma_chunks(t_end);
)sql";

// Version 5: the escalation ledger and the latched findings (store_latches.cpp).
// xid 0: the cause names no Xid. gpu_identity: the GPU's UUID, else its key.
constexpr const char* kLatchSchema = R"sql(
CREATE TABLE IF NOT EXISTS occurrences(id INTEGER PRIMARY KEY, t_ms INTEGER NOT NULL,
                                       boot_id TEXT NOT NULL, gpu_identity TEXT NOT NULL,
                                       bus_id TEXT, finding_id TEXT NOT NULL, xid INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS occurrences_once
    ON occurrences(gpu_identity, finding_id, xid, boot_id);
CREATE TABLE IF NOT EXISTS latches(id INTEGER PRIMARY KEY, finding_id TEXT NOT NULL,
                                   xid INTEGER NOT NULL, gpu_identity TEXT NOT NULL,
                                   uuid TEXT, serial TEXT, bus_id TEXT NOT NULL,
                                   boots INTEGER NOT NULL, after_reboots INTEGER NOT NULL,
                                   first_ms INTEGER NOT NULL, since_ms INTEGER NOT NULL,
                                   title_en TEXT, title_zh TEXT, acked_ms INTEGER,
                                   acked_by TEXT, ack_reason TEXT, ack_via TEXT);
)sql";

// A finding's recovery action as stored: RecoveryActionCode; NULL unknown.
std::optional<std::int64_t> ActionCell(const std::optional<RecoveryAction>& action) {
  if (!action) return std::nullopt;
  return RecoveryActionCode(*action);
}

std::string JoinGpus(const std::vector<std::string>& gpus) {
  std::string out;
  for (const auto& g : gpus) out += (out.empty() ? "" : ",") + g;
  return out;
}

bool SameIdentity(const GpuStatus& a, const GpuStatus& b) {
  return a.index == b.index && a.name == b.name && a.uuid == b.uuid && a.serial == b.serial;
}

// -1 when the file does not exist.
std::int64_t SizeOf(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : -1;
}

// Cases SQLite gets wrong for us, checked before it touches the files: an
// empty database beside a WAL holding data (opening it would delete that
// WAL: every sample since the last checkpoint), and a read-only directory
// without the -shm index SQLite reads a WAL through. Returns whether the
// database must be opened immutable: read-only, no -shm (so no agent is
// writing) and no WAL content, which SQLite would otherwise refuse to open
// ("unable to open database file") although every sample is in the file.
Result<bool> CheckFilesBeforeOpen(const StoreOptions& options, const std::string& path) {
  std::int64_t db = SizeOf(path);
  std::int64_t wal = SizeOf(path + "-wal");
  if (db == 0 && wal > 0) {
    return DamagedStore(path + ": empty, but " + path + "-wal holds " + std::to_string(wal) +
                        " bytes of recorded data");
  }
  if (!options.read_only || SizeOf(path + "-shm") >= 0 ||
      access(options.data_dir.c_str(), W_OK) == 0) {
    return false;
  }
  if (wal > 0) {
    return Error{ErrorCode::kPermission,
                 path + "-wal (" + std::to_string(wal) +
                     " bytes of recent samples) cannot be read: its index " + path +
                     "-shm is missing and the data directory is read-only; copy the directory "
                     "somewhere writable and run report there"};
  }
  return true;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + '\n';
  return out;
}

}  // namespace

Error DamagedStore(const std::string& what) {
  return Error{ErrorCode::kCorrupt,
               what +
                   " (the store is damaged; it was left as it is: move gpudoctor.db* aside to "
                   "start a new store, or try sqlite3's .recover on a copy)"};
}

std::int64_t ToMs(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

WallTime FromMs(std::int64_t ms) {
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::milliseconds(ms)));
}

Result<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) {
  return SqliteStore::OpenStore(options);
}

Result<std::unique_ptr<Store>> SqliteStore::OpenStore(const StoreOptions& options) {
  std::string path = options.data_dir + "/gpudoctor.db";
  auto immutable = CheckFilesBeforeOpen(options, path);
  if (!immutable) return immutable.error();
  std::unique_ptr<StoreDirLock> lock;
  if (options.read_only) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) {
      return Error{ErrorCode::kNotFound,
                   path +
                       ": no gpudoctor store here (has `gpudoctor agent` run with this data "
                       "directory?)"};
    }
  } else {
    std::error_code ec;
    std::filesystem::create_directories(options.data_dir, ec);
    if (ec) return Error{ErrorCode::kIo, options.data_dir + ": " + ec.message()};
    auto locked = LockStoreDir(options.data_dir);
    if (!locked) return locked.error();
    lock = std::move(*locked);
  }
  auto db = Db::Open(path, options.read_only, *immutable);
  if (!db) return db.error();
  std::unique_ptr<SqliteStore> store(new SqliteStore(options, std::move(*db), std::move(lock)));
  store->RememberFile();
  if (auto prepared = store->Prepare(); !prepared) return prepared.error();
  if (auto loaded = store->LoadState(); !loaded) {
    if (loaded.error().code == ErrorCode::kCorrupt) return DamagedStore(loaded.error().message);
    return loaded.error();
  }
  return std::unique_ptr<Store>(std::move(store));
}

SqliteStore::SqliteStore(StoreOptions options, std::unique_ptr<Db> db,
                         std::unique_ptr<StoreDirLock> lock)
    : options_(std::move(options)),
      path_(options_.data_dir + "/gpudoctor.db"),
      db_(std::move(db)),
      lock_(std::move(lock)) {}

SqliteStore::~SqliteStore() {
  db_.reset();  // the database closed before the lock is let go
  lock_.reset();
}

Status SqliteStore::Prepare() {
  auto version = db_->QueryInt("PRAGMA user_version");
  if (!version) {
    if (version.error().code == ErrorCode::kCorrupt) return DamagedStore(version.error().message);
    return version.error();
  }
  if (*version > kStoreSchemaVersion) {
    return Error{ErrorCode::kNotSupported, path_ + ": written by a newer gpudoctor (store schema " +
                                               std::to_string(*version) +
                                               ", this version reads up to " +
                                               std::to_string(kStoreSchemaVersion) + ")"};
  }
  auto tables = db_->QueryInt("SELECT count(*) FROM sqlite_master");
  if (!tables) return tables.error();
  if (*version == 0 && *tables > 0) {
    return Error{ErrorCode::kCorrupt, path_ + ": not a gpudoctor store (it holds other tables)"};
  }
  schema_version_ = *version == 0 ? kStoreSchemaVersion : *version;
  if (options_.read_only) {
    if (*version == 0) return Error{ErrorCode::kNotFound, path_ + ": the store is empty"};
    return OkStatus();
  }
  if (*version > 0) {
    // The agent appends for months: refuse a damaged store at the start
    // rather than write into it (one read of every page, at start only).
    auto failed = [](const Error& e) {
      return e.code == ErrorCode::kCorrupt ? DamagedStore(e.message) : e;
    };
    auto check = db_->Prepare("PRAGMA quick_check(1)");
    if (!check) return failed(check.error());
    auto row = check->Step();
    if (!row) return failed(row.error());
    if (*row && check->Text(0) != "ok") {
      // "*** in database main ***\nPage 12: ..." made one line.
      std::string what = check->Text(0);
      std::erase(what, '*');
      std::replace(what.begin(), what.end(), '\n', ';');
      what.erase(0, std::min(what.size(), what.find_first_not_of(' ')));
      return DamagedStore(path_ + ": " + what);
    }
  }
  // The WAL counts against the size bound too: keep it a small share.
  std::int64_t wal_pages = std::clamp<std::int64_t>(options_.max_store_bytes / 4096 / 8, 64, 1000);
  // auto_vacuum first: SQLite ignores it once the file has a header, which
  // journal_mode=WAL writes (a store made before read back auto_vacuum=0,
  // and its incremental_vacuum freed nothing). A small page cache: the
  // agent appends, and SQLite's default 2 MB cache was a tenth of its memory.
  std::string pragmas = std::string(*version == 0 ? "PRAGMA auto_vacuum=INCREMENTAL;" : "") +
      "PRAGMA cache_size=-256; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
      "PRAGMA wal_autocheckpoint=" +
      std::to_string(wal_pages) +
      "; PRAGMA journal_size_limit=" + std::to_string(wal_pages * 4096) + ";";
  if (options_.max_pages > 0) {
    pragmas += "PRAGMA max_page_count=" + std::to_string(options_.max_pages) + ";";
  }
  if (auto set = db_->Exec(pragmas); !set) return set;
  if (*version > 0) {
    // A store made without auto_vacuum (see above) is rebuilt with it once,
    // so that retention gives its space back. Not fatal: a store that
    // cannot be rebuilt now (no room for the copy) is still written.
    auto mode = db_->QueryInt("PRAGMA auto_vacuum");
    if (mode && *mode == 0) (void)db_->Exec("PRAGMA auto_vacuum=INCREMENTAL; VACUUM;");
  }
  if (*version == 0) {
    std::string create = std::string("BEGIN;") + kSchema + kRdmaSchema + kLatchSchema +
                         "PRAGMA user_version=" + std::to_string(kStoreSchemaVersion) + ";COMMIT;";
    if (auto created = db_->Exec(create); !created) return created;
  } else if (*version < kStoreSchemaVersion) {
    std::string upgrade = "BEGIN;";
    if (*version < 2) upgrade += "ALTER TABLE events ADD COLUMN gpu_number INTEGER;";
    // Version 4: each finding interval's strictest recovery action (a
    // store whose version was set back by hand may have the column).
    auto has_action =
        db_->QueryInt("SELECT count(*) FROM pragma_table_info('findings') WHERE name='action'");
    if (!has_action) return has_action.error();
    if (*has_action == 0) upgrade += "ALTER TABLE findings ADD COLUMN action INTEGER;";
    upgrade += std::string(kRdmaSchema) + kLatchSchema +
               "PRAGMA user_version=" + std::to_string(kStoreSchemaVersion) + "; COMMIT;";
    if (auto upgraded = db_->Exec(upgrade); !upgraded) {
      (void)db_->Exec("ROLLBACK");
      return upgraded;
    }
    schema_version_ = kStoreSchemaVersion;
  }
  return OkStatus();
}

Status SqliteStore::LoadState() {
  gpus_.clear();
  pending_.clear();
  auto gpus = db_->Prepare("SELECT id, bus_id, gpu_index, name, uuid, serial FROM gpus");
  if (!gpus) return gpus.error();
  auto read = gpus->ForEachRow([&]() -> Status {
    GpuRow g;
    g.id = gpus->Int(0);
    g.bus_id = gpus->Text(1);
    g.identity.pci_bus_id = IsIndexKey(g.bus_id) ? "" : g.bus_id;
    g.identity.index = static_cast<unsigned>(gpus->Int(2));
    g.identity.name = gpus->Text(3);
    g.identity.uuid = gpus->Text(4);
    if (!gpus->IsNull(5)) g.identity.serial = gpus->Text(5);
    gpus_[g.bus_id] = g;
    return OkStatus();
  });
  if (!read) return read;
  auto pending = db_->Prepare("SELECT gpu, min(t_ms), count(*) FROM pending GROUP BY gpu");
  if (!pending) return pending.error();
  auto rows = pending->ForEachRow([&]() -> Status {
    pending_[pending->Int(0)] = PendingState{pending->Int(1), pending->Int(2)};
    return OkStatus();
  });
  if (!rows) return rows;
  rdma_pending_ = PendingState{};
  if (schema_version_ < 3) return OkStatus();
  auto rdma = db_->Prepare("SELECT coalesce(min(t_ms), 0), count(*) FROM rdma_pending");
  if (!rdma) return rdma.error();
  return rdma->ForEachRow([&]() -> Status {
    rdma_pending_ = PendingState{rdma->Int(0), rdma->Int(1)};
    return OkStatus();
  });
}

Status SqliteStore::NoteWriteError(const Error& error, std::int64_t now_ms) {
  last_error_ = error.message;
  if (error.code == ErrorCode::kIo) {
    writes_stopped_ = true;
    retry_at_ms_ = now_ms + kRetryWritesEveryMs;
    last_error_ += " (writes stopped; retrying every minute)";
  }
  (void)LoadState();  // the in-memory view must match what was rolled back
  return Error{error.code, last_error_};
}

Status SqliteStore::CheckWritable(std::int64_t now_ms) {
  if (options_.read_only) {
    return Error{ErrorCode::kPermission, path_ + ": the store is open read-only"};
  }
  // A deleted file is written on (what it holds is copied out once its
  // directory can be made again); Stats() and /healthz say so meanwhile.
  (void)CheckFileStillThere(now_ms);
  if (!writes_stopped_) return OkStatus();
  if (now_ms < retry_at_ms_) return Error{ErrorCode::kIo, last_error_};
  if (size_stopped_) {
    // Retention may have made room since; if not, stay stopped.
    if (auto m = RunMaintenance(now_ms); !m) return m;
    if (size_stopped_) return Error{ErrorCode::kIo, last_error_};
  }
  writes_stopped_ = false;
  return OkStatus();
}

Result<std::int64_t> SqliteStore::GpuIdFor(const GpuStatus& gpu) {
  std::string key = GpuKeyOf(gpu);
  auto it = gpus_.find(key);
  if (it != gpus_.end() && SameIdentity(it->second.identity, gpu)) return it->second.id;
  auto stmt = db_->Cached(
      "INSERT INTO gpus(bus_id, gpu_index, name, uuid, serial) VALUES(?1, ?2, ?3, ?4, ?5) "
      "ON CONFLICT(bus_id) DO UPDATE SET gpu_index=?2, name=?3, uuid=?4, serial=?5 "
      "RETURNING id");
  if (!stmt) return stmt.error();
  Statement& s = **stmt;
  s.Bind(1, key).Bind(2, std::int64_t{gpu.index}).Bind(3, gpu.name).Bind(4, gpu.uuid);
  if (gpu.serial) {
    s.Bind(5, *gpu.serial);
  } else {
    s.BindNull(5);
  }
  auto row = s.Step();
  if (!row) return row.error();
  std::int64_t id = s.Int(0);
  s.Reset();
  GpuRow& g = gpus_[key];
  g.id = id;
  g.bus_id = key;
  g.identity.pci_bus_id = gpu.pci_bus_id;
  g.identity.index = gpu.index;
  g.identity.name = gpu.name;
  g.identity.uuid = gpu.uuid;
  g.identity.serial = gpu.serial;
  return id;
}

Status SqliteStore::AppendSample(WallTime time, const SystemStatus& status) {
  std::int64_t now = ToMs(time);
  if (auto w = CheckWritable(now); !w) return w;
  std::vector<NamedCell> cells;
  auto written = Transaction(now, [&]() -> Status {
    for (const GpuStatus& gpu : status.gpus) {
      auto id = GpuIdFor(gpu);
      if (!id) return id.error();
      if (auto it = pending_.find(*id); it != pending_.end() && it->second.count > 0 &&
                                        (it->second.first_ms / kChunkSpanMs != now / kChunkSpanMs ||
                                         it->second.count >= kMaxChunkSamples)) {
        if (auto sealed = SealGpu(*id); !sealed) return sealed;
      }
      cells.clear();
      StatusToCells(gpu, cells);
      const std::string blob = EncodeRow(now, cells, /*zlib_level=*/1);
      auto stmt = db_->Cached("INSERT OR REPLACE INTO pending(gpu, t_ms, blob) VALUES(?, ?, ?)");
      if (!stmt) return stmt.error();
      if (auto run = (*stmt)->Bind(1, *id).Bind(2, now).BindBlob(3, blob).Run(); !run) return run;
      PendingState& p = pending_[*id];
      if (p.count == 0) p.first_ms = now;
      ++p.count;
    }
    return OkStatus();
  });
  if (!written) return written;
  last_error_.clear();
  // The sample is recorded; a maintenance failure shows in Stats() and stops
  // later writes when it is the disk or the size bound.
  if (now - last_maintenance_ms_ >= kMaintenanceEveryMs) (void)RunMaintenance(now);
  return OkStatus();
}

Status SqliteStore::AppendEvent(const KernelEvent& e) {
  std::int64_t now = ToMs(e.time.value_or(std::chrono::system_clock::now()));
  if (auto w = CheckWritable(now); !w) return w;
  return Transaction(now, [&]() -> Status {
    auto stmt = db_->Cached(
        "INSERT INTO events(t_ms, time_known, kind, code, bus_id, pid, process, message, "
        "continuation, count, last_t_ms, monotonic_s, last_monotonic_s, source_file, "
        "source_line, detail, gpu_number) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!stmt) return stmt.error();
    Statement& s = **stmt;
    s.Bind(1, now).Bind(2, std::int64_t{e.time ? 1 : 0}).Bind(3, KernelEventKindName(e.kind));
    s.Bind(4, e.code ? std::optional<std::int64_t>(*e.code) : std::nullopt);
    s.Bind(5, e.pci_bus_id).Bind(6, e.pid).Bind(7, e.process).Bind(8, e.message);
    s.Bind(9, Joined(e.continuation)).Bind(10, static_cast<std::int64_t>(e.count));
    s.Bind(11, e.last_time ? std::optional<std::int64_t>(ToMs(*e.last_time)) : std::nullopt);
    if (e.monotonic_s) s.Bind(12, *e.monotonic_s);
    if (e.last_monotonic_s) s.Bind(13, *e.last_monotonic_s);
    s.Bind(14, e.source.file).Bind(15, static_cast<std::int64_t>(e.source.line));
    s.Bind(16, e.detail);
    s.Bind(17, e.gpu_number ? std::optional<std::int64_t>(*e.gpu_number) : std::nullopt);
    return s.Run();
  });
}

Status SqliteStore::FindingSeen(const FindingInterval& f, WallTime time) {
  std::int64_t now = ToMs(time);
  if (auto w = CheckWritable(now); !w) return w;
  std::string gpus = JoinGpus(f.gpus);
  return Transaction(now, [&]() -> Status {
    auto update = db_->Cached(
        "UPDATE findings SET severity=max(severity, ?3), title_en=?4, title_zh=?5, "
        "action=CASE WHEN ?6 IS NULL THEN action ELSE max(coalesce(action, 0), ?6) END "
        "WHERE id=(SELECT id FROM findings WHERE finding_id=?1 AND gpus=?2 AND end_ms IS NULL "
        "ORDER BY id DESC LIMIT 1)");
    if (!update) return update.error();
    (*update)->Bind(1, f.finding_id).Bind(2, gpus);
    (*update)->Bind(3, static_cast<std::int64_t>(f.severity));
    (*update)->Bind(4, f.title.en).Bind(5, f.title.zh);
    (*update)->Bind(6, ActionCell(f.recommended));
    if (auto run = (*update)->Run(); !run) return run;
    if (db_->changes() > 0) return OkStatus();
    auto insert = db_->Cached(
        "INSERT INTO findings(finding_id, gpus, severity, title_en, title_zh, start_ms, action) "
        "VALUES(?,?,?,?,?,?,?)");
    if (!insert) return insert.error();
    (*insert)->Bind(1, f.finding_id).Bind(2, gpus);
    (*insert)->Bind(3, static_cast<std::int64_t>(f.severity));
    (*insert)->Bind(4, f.title.en).Bind(5, f.title.zh).Bind(6, now);
    (*insert)->Bind(7, ActionCell(f.recommended));
    return (*insert)->Run();
  });
}

Status SqliteStore::FindingCleared(const std::string& finding_id,
                                         const std::vector<std::string>& gpus, WallTime time) {
  std::int64_t now = ToMs(time);
  if (auto w = CheckWritable(now); !w) return w;
  return Transaction(now, [&]() -> Status {
    auto stmt = db_->Cached(
        "UPDATE findings SET end_ms=?3 WHERE finding_id=?1 AND gpus=?2 AND end_ms IS NULL");
    if (!stmt) return stmt.error();
    return (*stmt)->Bind(1, finding_id).Bind(2, JoinGpus(gpus)).Bind(3, now).Run();
  });
}

Status SqliteStore::Flush() {
  std::int64_t now = ToMs(std::chrono::system_clock::now());
  if (auto w = CheckWritable(now); !w) return w;
  return Transaction(now, [&]() -> Status {
    std::vector<std::int64_t> ids;
    for (const auto& [id, p] : pending_) {
      if (p.count > 0) ids.push_back(id);
    }
    for (std::int64_t id : ids) {
      if (auto sealed = SealGpu(id); !sealed) return sealed;
    }
    return rdma_pending_.count > 0 ? SealRdma() : OkStatus();
  });
}

Result<std::optional<WallTime>> SqliteStore::LastSampleTime() {
  auto stmt = db_->Prepare(
      "SELECT max(t) FROM (SELECT max(t_ms) AS t FROM pending UNION ALL "
      "SELECT max(t_end) FROM chunks)");
  if (!stmt) return stmt.error();
  auto row = stmt->Step();
  if (!row) return row.error();
  if (!*row || stmt->IsNull(0)) return std::optional<WallTime>();
  return std::optional<WallTime>(FromMs(stmt->Int(0)));
}

Result<std::int64_t> SqliteStore::CloseOpenFindings(WallTime at) {
  std::int64_t now = ToMs(at);
  if (auto w = CheckWritable(now); !w) return w.error();
  std::int64_t closed = 0;
  auto done = Transaction(now, [&]() -> Status {
    auto stmt = db_->Prepare("UPDATE findings SET end_ms=max(start_ms, ?) WHERE end_ms IS NULL");
    if (!stmt) return stmt.error();
    if (auto run = stmt->Bind(1, now).Run(); !run) return run;
    closed = db_->changes();
    return OkStatus();
  });
  if (!done) return done.error();
  return closed;
}

std::int64_t SqliteStore::FileBytes() const {
  std::int64_t total = 0;
  for (const char* suffix : {"", "-wal"})
    total += std::max<std::int64_t>(SizeOf(path_ + suffix), 0);
  return total;
}

}  // namespace gpudoctor
