// The RDMA port readings: appended as pending rows, sealed into compressed
// chunks with the GPUs' (every ten minutes, on Flush), read back per window.
#include <limits>

#include "core/time_format.h"
#include "store/rdma_cells.h"
#include "store/store_sqlite.h"

namespace gpudoctor {

namespace store_rdma_detail {

// Chunks hold at most this many readings (ten minutes at one per second).
constexpr std::int64_t kMaxRdmaChunkRows = 600;

}  // namespace store_rdma_detail

Status SqliteStore::AppendRdma(WallTime time, const RdmaFacts& facts) {
  if (facts.devices.empty()) return OkStatus();
  std::int64_t now = ToMs(time);
  if (auto w = CheckWritable(now); !w) return w;
  std::vector<NamedCell> cells;
  RdmaToCells(facts, cells);
  const std::string blob = EncodeRow(now, cells, /*zlib_level=*/1);
  return Transaction(now, [&]() -> Status {
    if (rdma_pending_.count > 0 && (rdma_pending_.first_ms / kChunkSpanMs != now / kChunkSpanMs ||
                                    rdma_pending_.count >= store_rdma_detail::kMaxRdmaChunkRows)) {
      if (auto sealed = SealRdma(); !sealed) return sealed;
    }
    auto stmt = db_->Cached("INSERT OR REPLACE INTO rdma_pending(t_ms, blob) VALUES(?, ?)");
    if (!stmt) return stmt.error();
    if (auto run = (*stmt)->Bind(1, now).BindBlob(2, blob).Run(); !run) return run;
    if (rdma_pending_.count == 0) rdma_pending_.first_ms = now;
    ++rdma_pending_.count;
    return OkStatus();
  });
}

namespace store_rdma_detail {

// The pending rows between the times as one set; a row that does not decode
// is skipped.
Result<ColumnSet> PendingRdma(Db& db, std::int64_t from_ms, std::int64_t to_ms) {
  auto select =
      db.Cached("SELECT blob FROM rdma_pending WHERE t_ms >= ? AND t_ms <= ? ORDER BY t_ms");
  if (!select) return select.error();
  Statement& s = **select;
  s.Bind(1, from_ms).Bind(2, to_ms);
  return ConcatPendingBlobs(s);
}

}  // namespace store_rdma_detail

Status SqliteStore::SealRdma() {
  auto pending = store_rdma_detail::PendingRdma(*db_, std::numeric_limits<std::int64_t>::min(),
                                                std::numeric_limits<std::int64_t>::max());
  if (!pending) return pending.error();
  if (!pending->times_ms.empty()) {
    auto chunk = EncodeColumnSet(*pending);
    if (!chunk) return chunk.error();
    auto insert = db_->Cached("INSERT INTO rdma_chunks(t_start, t_end, n, blob) VALUES(?,?,?,?)");
    if (!insert) return insert.error();
    (*insert)->Bind(1, pending->times_ms.front()).Bind(2, pending->times_ms.back());
    (*insert)->Bind(3, static_cast<std::int64_t>(pending->times_ms.size())).BindBlob(4, *chunk);
    if (auto run = (*insert)->Run(); !run) return run;
  }
  if (auto clear = db_->Exec("DELETE FROM rdma_pending"); !clear) return clear;
  rdma_pending_ = PendingState{};
  return OkStatus();
}

Status SqliteStore::ReadRdma(std::int64_t from_ms, std::int64_t to_ms, StoredWindow& window) {
  if (schema_version_ < 3) return OkStatus();  // an older store opened read-only
  std::vector<RdmaFacts> readings;
  auto keep = [&](std::vector<RdmaFacts> decoded) {
    for (RdmaFacts& f : decoded) {
      const std::int64_t t = ToMs(*f.read_at);
      if (t >= from_ms && t <= to_ms) readings.push_back(std::move(f));
    }
  };
  auto chunks = db_->Cached(
      "SELECT blob, t_start, t_end FROM rdma_chunks WHERE t_end >= ? AND t_start <= ? "
      "ORDER BY t_start");
  if (!chunks) return chunks.error();
  (*chunks)->Bind(1, from_ms).Bind(2, to_ms);
  auto read = (*chunks)->ForEachRow([&]() -> Status {
    auto set = DecodeColumnSet((*chunks)->Blob(0));
    if (!set) {
      window.damaged.push_back({"", "", 0,
                                path_ + ": the RDMA port readings from " +
                                    FormatRfc3339(FromMs((*chunks)->Int(1))) + " to " +
                                    FormatRfc3339(FromMs((*chunks)->Int(2))) + " are damaged (" +
                                    set.error().message + ") and left out"});
      return OkStatus();
    }
    keep(DecodeRdmaReadings(*set));
    return OkStatus();
  });
  if (!read) return read;
  auto pending = store_rdma_detail::PendingRdma(*db_, from_ms, to_ms);
  if (!pending) return pending.error();
  keep(DecodeRdmaReadings(*pending));
  window.rdma_downsampled = readings.size() > kMaxRdmaReadings;
  window.rdma = ThinRdmaReadings(std::move(readings), kMaxRdmaReadings);
  return OkStatus();
}

}  // namespace gpudoctor
