// Sealing: a GPU's pending samples become one compressed chunk plus the
// roll-ups of its minutes, in the caller's transaction.
#include <limits>

#include "store/rollup.h"
#include "store/store_sqlite.h"

namespace gpudoctor {

Result<ColumnSet> ConcatPendingBlobs(Statement& select) {
  ColumnSetBuilder builder;
  std::vector<NamedCell> cells;
  auto read = select.ForEachRow([&]() -> Status {
    auto one = DecodeColumnSet(select.Blob(0));
    if (!one) return OkStatus();  // a damaged pending row is skipped, not fatal
    ColumnSetReader reader(*one);
    for (std::int64_t t : one->times_ms) {
      cells.clear();
      reader.NextRow([&](std::size_t c, const Cell& cell) {
        cells.push_back({one->columns[c].name, cell});
      });
      builder.AddRow(t, cells);
    }
    return OkStatus();
  });
  if (!read) return read.error();
  return builder.Take();
}

Result<ColumnSet> SqliteStore::ReadPending(std::int64_t gpu_id, std::int64_t from_ms,
                                           std::int64_t to_ms) {
  auto select =
      db_->Cached("SELECT blob FROM pending WHERE gpu=? AND t_ms >= ? AND t_ms <= ? ORDER BY t_ms");
  if (!select) return select.error();
  Statement& s = **select;
  s.Bind(1, gpu_id).Bind(2, from_ms).Bind(3, to_ms);
  return ConcatPendingBlobs(s);
}

Status SqliteStore::SealGpu(std::int64_t gpu_id) {
  auto pending = ReadPending(gpu_id, std::numeric_limits<std::int64_t>::min(),
                             std::numeric_limits<std::int64_t>::max());
  if (!pending) return pending.error();
  const ColumnSet& set = *pending;
  if (!set.times_ms.empty()) {
    auto chunk = EncodeColumnSet(set);
    if (!chunk) return chunk.error();
    auto minutes = AggregateMinutes(set);
    auto insert_chunk =
        db_->Cached("INSERT INTO chunks(gpu, t_start, t_end, n, blob) VALUES(?,?,?,?,?)");
    if (!insert_chunk) return insert_chunk.error();
    (*insert_chunk)->Bind(1, gpu_id).Bind(2, set.times_ms.front()).Bind(3, set.times_ms.back());
    (*insert_chunk)->Bind(4, static_cast<std::int64_t>(set.times_ms.size())).BindBlob(5, *chunk);
    if (auto run = (*insert_chunk)->Run(); !run) return run;
    if (auto put = InsertRollups(gpu_id, minutes); !put) return put;
  }
  auto clear = db_->Cached("DELETE FROM pending WHERE gpu=?");
  if (!clear) return clear.error();
  if (auto run = (*clear)->Bind(1, gpu_id).Run(); !run) return run;
  pending_.erase(gpu_id);
  return OkStatus();
}

Status SqliteStore::SealDue(std::int64_t now_ms) {
  std::vector<std::int64_t> due;
  for (const auto& [id, p] : pending_) {
    if (p.count > 0 && p.first_ms / kChunkSpanMs != now_ms / kChunkSpanMs) due.push_back(id);
  }
  const bool rdma_due =
      rdma_pending_.count > 0 && rdma_pending_.first_ms / kChunkSpanMs != now_ms / kChunkSpanMs;
  if (due.empty() && !rdma_due) return OkStatus();
  return Transaction(now_ms, [&]() -> Status {
    for (std::int64_t id : due) {
      if (auto sealed = SealGpu(id); !sealed) return sealed;
    }
    return rdma_due ? SealRdma() : OkStatus();
  });
}

}  // namespace gpudoctor
