// SqliteStore's escalation ledger and latched findings (schema 5): one
// occurrence row per cause, GPU and boot; one latch row per latched cause,
// acknowledged in place (store/latch_ack.h) so that the history is kept.
#include <fmt/format.h>

#include "core/time_format.h"
#include "store/latch_rows.h"
#include "store/store_sqlite.h"

namespace gpudoctor {

Status SqliteStore::RecordOccurrence(const std::string& gpu_identity, const std::string& gpu_key,
                                     const RecurringCause& cause, const std::string& boot_id,
                                     WallTime time) {
  const std::int64_t now = ToMs(time);
  if (auto w = CheckWritable(now); !w) return w;
  return Transaction(now, [&]() -> Status {
    auto stmt = db_->Cached(
        "INSERT OR IGNORE INTO occurrences(t_ms, boot_id, gpu_identity, bus_id, finding_id, xid) "
        "VALUES(?,?,?,?,?,?)");
    if (!stmt) return stmt.error();
    return (*stmt)
        ->Bind(1, now)
        .Bind(2, boot_id)
        .Bind(3, gpu_identity)
        .Bind(4, gpu_key)
        .Bind(5, cause.finding_id)
        .Bind(6, std::int64_t{cause.xid.value_or(0)})
        .Run();
  });
}

Result<std::vector<Occurrence>> SqliteStore::Occurrences(const std::string& gpu_identity,
                                                         const RecurringCause& cause,
                                                         WallTime from) {
  auto stmt = db_->Cached(
      "SELECT t_ms, boot_id FROM occurrences WHERE gpu_identity=?1 AND finding_id=?2 AND xid=?3 "
      "AND t_ms >= max(?4, coalesce((SELECT max(acked_ms) FROM latches WHERE gpu_identity=?1 "
      "AND finding_id=?2 AND xid=?3), 0)) ORDER BY t_ms");
  if (!stmt) return stmt.error();
  Statement& s = **stmt;
  s.Bind(1, gpu_identity).Bind(2, cause.finding_id).Bind(3, std::int64_t{cause.xid.value_or(0)});
  s.Bind(4, ToMs(from));
  std::vector<Occurrence> out;
  auto read = s.ForEachRow([&]() -> Status {
    out.push_back(Occurrence{FromMs(s.Int(0)), s.Text(1)});
    return OkStatus();
  });
  if (!read) return read.error();
  return out;
}

Result<bool> SqliteStore::Latch(const LatchedFinding& l) {
  const std::int64_t now = ToMs(l.since);
  if (auto w = CheckWritable(now); !w) return w.error();
  const std::string identity = l.uuid.empty() ? l.gpu : l.uuid;
  bool latched = false;
  auto written = Transaction(now, [&]() -> Status {
    auto open = db_->Cached(
        "SELECT count(*) FROM latches WHERE gpu_identity=? AND finding_id=? AND xid=? AND "
        "acked_ms IS NULL");
    if (!open) return open.error();
    Statement& q = **open;
    q.Bind(1, identity).Bind(2, l.finding_id).Bind(3, std::int64_t{l.xid.value_or(0)});
    auto row = q.Step();
    if (!row) return row.error();
    const bool already = *row && q.Int(0) > 0;
    q.Reset();
    if (already) return OkStatus();
    auto insert = db_->Cached(
        "INSERT INTO latches(finding_id, xid, gpu_identity, uuid, serial, bus_id, boots, "
        "after_reboots, first_ms, since_ms, title_en, title_zh) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!insert) return insert.error();
    Statement& s = **insert;
    s.Bind(1, l.finding_id).Bind(2, std::int64_t{l.xid.value_or(0)}).Bind(3, identity);
    s.Bind(4, l.uuid).Bind(5, l.serial).Bind(6, l.gpu).Bind(7, std::int64_t{l.boots});
    s.Bind(8, std::int64_t{l.after_reboots}).Bind(9, ToMs(l.first_seen)).Bind(10, now);
    s.Bind(11, l.title_en).Bind(12, l.title_zh);
    latched = true;
    return s.Run();
  });
  if (!written) return written.error();
  if (!latched) return false;
  KernelEvent e;
  e.kind = KernelEventKind::kLatched;
  e.time = l.since;
  e.source = SourceRef{"agent", 0};
  e.pci_bus_id = l.gpu;
  e.code = l.xid;
  e.detail = l.finding_id;
  e.message = fmt::format(
      "{}{} on GPU {}{} came back after {} reboot(s) (threshold {}): latched for hardware "
      "inspection until acknowledged (gpudoctor ack gpu.needs_inspection --gpu {})",
      l.finding_id, l.xid ? fmt::format(" (Xid {})", *l.xid) : std::string(), l.gpu,
      l.uuid.empty() ? std::string() : " " + l.uuid, l.boots - 1, l.after_reboots, l.gpu);
  if (auto r = AppendEvent(e); !r) return r.error();
  return true;
}

Result<std::vector<LatchedFinding>> SqliteStore::OpenLatches(WallTime at) {
  if (schema_version_ < 5) return std::vector<LatchedFinding>{};
  return ReadOpenLatches(*db_, ToMs(at));
}

}  // namespace gpudoctor
