// Retention (raw samples for N days; roll-ups, events and findings for M
// days), compaction of a day's roll-ups into one row, and the size bound.
#include <algorithm>
#include <tuple>

#include "store/rollup.h"
#include "store/store_sqlite.h"

namespace gpudoctor {

namespace {

// Below this share of max_store_bytes the size bound stops deleting, so it
// does not run again at the next sample.
constexpr double kSizeBoundTarget = 0.9;

}  // namespace

Status SqliteStore::RunMaintenance(std::int64_t now_ms) {
  last_maintenance_ms_ = now_ms;
  if (auto sealed = SealDue(now_ms); !sealed) return sealed;
  if (auto kept = ApplyRetention(now_ms); !kept) return kept;
  if (auto compacted = CompactRollups(now_ms); !compacted) return compacted;
  if (FileBytes() <= options_.max_store_bytes) {
    if (size_stopped_) {
      size_stopped_ = false;
      writes_stopped_ = false;
      last_error_.clear();
    }
    return OkStatus();
  }
  return EnforceSizeBound(now_ms);
}

Status SqliteStore::ApplyRetention(std::int64_t now_ms) {
  std::int64_t raw_cut = now_ms - options_.raw_retention_days * kDayMs;
  std::int64_t rollup_cut = now_ms - options_.rollup_retention_days * kDayMs;
  auto deleted = Transaction(now_ms, [&]() -> Status {
    const std::pair<const char*, std::int64_t> kDeletes[] = {
        {"DELETE FROM chunks WHERE t_end < ?", raw_cut},
        {"DELETE FROM rdma_chunks WHERE t_end < ?", raw_cut},
        {"DELETE FROM rollups WHERE t_end < ?", rollup_cut},
        {"DELETE FROM events WHERE t_ms < ?", rollup_cut},
        {"DELETE FROM findings WHERE end_ms IS NOT NULL AND end_ms < ?", rollup_cut},
        {"DELETE FROM occurrences WHERE t_ms < ?", rollup_cut},
        // A latch stays until acknowledged; its audit record as long as events.
        {"DELETE FROM latches WHERE acked_ms IS NOT NULL AND acked_ms < ?", rollup_cut},
    };
    for (const auto& [sql, cut] : kDeletes) {
      auto stmt = db_->Cached(sql);
      if (!stmt) return stmt.error();
      if (auto run = (*stmt)->Bind(1, cut).Run(); !run) return run;
    }
    return OkStatus();
  });
  if (!deleted) return deleted;
  if (auto trimmed = TrimRollups(rollup_cut - rollup_cut % kHourMs, now_ms); !trimmed) {
    return trimmed;
  }
  // Hand freed pages back to the file system once they add up.
  auto free_pages = db_->QueryInt("PRAGMA freelist_count");
  if (free_pages && *free_pages > 256) (void)db_->Exec("PRAGMA incremental_vacuum");
  return OkStatus();
}

Status SqliteStore::TrimRollups(std::int64_t cut_ms, std::int64_t now_ms) {
  // A roll-up row spanning the cut (a compacted day) loses its older minutes.
  auto rows =
      db_->Prepare("SELECT rowid, gpu, blob FROM rollups WHERE t_start < ?1 AND t_end >= ?1");
  if (!rows) return rows.error();
  rows->Bind(1, cut_ms);
  std::vector<std::tuple<std::int64_t, std::int64_t, std::vector<MinuteAgg>>> todo;
  auto read = rows->ForEachRow([&]() -> Status {
    auto minutes = DecodeRollups(rows->Blob(2));
    if (!minutes) return OkStatus();  // left for the whole-row delete
    std::erase_if(*minutes, [&](const MinuteAgg& m) { return m.minute_ms < cut_ms; });
    todo.emplace_back(rows->Int(0), rows->Int(1), std::move(*minutes));
    return OkStatus();
  });
  if (!read) return read;
  if (todo.empty()) return OkStatus();
  return Transaction(now_ms, [&]() -> Status {
    for (auto& [rowid, gpu, minutes] : todo) {
      auto erase = db_->Prepare("DELETE FROM rollups WHERE rowid=?");
      if (!erase) return erase.error();
      if (auto run = erase->Bind(1, rowid).Run(); !run) return run;
      if (auto put = InsertRollups(gpu, minutes); !put) return put;
    }
    return OkStatus();
  });
}

Status SqliteStore::InsertRollups(std::int64_t gpu_id,
                                        const std::vector<MinuteAgg>& minutes) {
  if (minutes.empty()) return OkStatus();
  auto blob = EncodeRollups(minutes);
  if (!blob) return blob.error();
  auto insert =
      db_->Cached("INSERT INTO rollups(gpu, t_start, t_end, minutes, blob) VALUES(?,?,?,?,?)");
  if (!insert) return insert.error();
  (*insert)->Bind(1, gpu_id).Bind(2, minutes.front().minute_ms);
  (*insert)->Bind(3, minutes.back().minute_ms + kMinuteMs - 1);
  (*insert)->Bind(4, static_cast<std::int64_t>(minutes.size())).BindBlob(5, *blob);
  return (*insert)->Run();
}

Status SqliteStore::CompactRollups(std::int64_t now_ms) {
  // Roll-up rows are written per chunk (ten minutes); whole days before
  // today are merged into one row per GPU, which compresses far better.
  std::int64_t today = now_ms - now_ms % kDayMs;
  auto days = db_->Prepare(
      "SELECT gpu, t_start / 86400000 AS day FROM rollups WHERE t_end < ? "
      "GROUP BY gpu, day HAVING count(*) > 1 LIMIT 64");
  if (!days) return days.error();
  days->Bind(1, today);
  std::vector<std::pair<std::int64_t, std::int64_t>> todo;
  auto read = days->ForEachRow([&]() -> Status {
    todo.emplace_back(days->Int(0), days->Int(1));
    return OkStatus();
  });
  if (!read) return read;
  for (const auto& [gpu, day] : todo) {
    auto merged = Transaction(now_ms, [&]() -> Status {
      auto select = db_->Prepare(
          "SELECT blob FROM rollups WHERE gpu=? AND t_start >= ? AND t_start < ? ORDER BY t_start");
      if (!select) return select.error();
      select->Bind(1, gpu).Bind(2, day * kDayMs).Bind(3, (day + 1) * kDayMs);
      std::map<std::int64_t, MinuteAgg> minutes;
      auto got = select->ForEachRow([&]() -> Status {
        auto decoded = DecodeRollups(select->Blob(0));
        if (!decoded) return Error{decoded.error().code, path_ + ": " + decoded.error().message};
        MergeMinutes(minutes, std::move(*decoded));
        return OkStatus();
      });
      if (!got) return got;
      std::vector<MinuteAgg> list;
      for (auto& [m, agg] : minutes) list.push_back(std::move(agg));
      if (list.empty()) return OkStatus();
      auto erase = db_->Prepare("DELETE FROM rollups WHERE gpu=? AND t_start >= ? AND t_start < ?");
      if (!erase) return erase.error();
      if (auto run = erase->Bind(1, gpu).Bind(2, day * kDayMs).Bind(3, (day + 1) * kDayMs).Run();
          !run) {
        return run;
      }
      return InsertRollups(gpu, list);
    });
    if (!merged) return merged;
  }
  return OkStatus();
}

Status SqliteStore::EnforceSizeBound(std::int64_t now_ms) {
  auto target =
      static_cast<std::int64_t>(static_cast<double>(options_.max_store_bytes) * kSizeBoundTarget);
  // Oldest raw chunks first (the RDMA readings' before the GPUs'), then the
  // oldest roll-ups; a tenth of what is left at a time, measuring the pages
  // in use after each step.
  for (const char* table : {"rdma_chunks", "chunks", "rollups"}) {
    for (int step = 0; step < 64; ++step) {
      auto pages = db_->QueryInt("PRAGMA page_count");
      auto free_pages = db_->QueryInt("PRAGMA freelist_count");
      auto page_size = db_->QueryInt("PRAGMA page_size");
      if (!pages || !free_pages || !page_size) break;
      if ((*pages - *free_pages) * *page_size <= target) break;
      auto rows = db_->QueryInt(std::string("SELECT count(*) FROM ") + table);
      if (!rows || *rows == 0) break;
      std::int64_t drop = std::max<std::int64_t>(1, *rows / 10);
      auto deleted = Transaction(now_ms, [&]() -> Status {
        return db_->Exec(std::string("DELETE FROM ") + table +
                         " WHERE rowid IN (SELECT rowid FROM " + table +
                         " ORDER BY t_start LIMIT " + std::to_string(drop) + ")");
      });
      if (!deleted) return deleted;
    }
  }
  (void)db_->Exec("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);");
  std::int64_t bytes = FileBytes();
  if (bytes <= options_.max_store_bytes) {
    size_stopped_ = false;
    return OkStatus();
  }
  size_stopped_ = true;
  writes_stopped_ = true;
  retry_at_ms_ = now_ms + kRetryWritesEveryMs;
  last_error_ = path_ + ": the store holds " + std::to_string(bytes / (1024 * 1024)) +
                " MB, over --max-store-mb " +
                std::to_string(options_.max_store_bytes / (1024 * 1024)) +
                " after dropping old samples; writes stopped";
  return Error{ErrorCode::kIo, last_error_};
}

}  // namespace gpudoctor
