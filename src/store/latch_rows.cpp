#include "store/latch_rows.h"

#include "store/store_sqlite.h"

namespace gpudoctor {

Result<std::vector<LatchedFinding>> ReadOpenLatches(Db& db, std::int64_t at_ms) {
  std::vector<LatchedFinding> out;
  auto version = db.QueryInt("PRAGMA user_version");
  if (!version) return version.error();
  if (*version < 5) return out;
  auto stmt = db.Prepare(
      "SELECT id, finding_id, xid, uuid, serial, bus_id, boots, after_reboots, first_ms, "
      "since_ms, title_en, title_zh FROM latches WHERE since_ms <= ?1 AND (acked_ms IS NULL OR "
      "acked_ms > ?1) ORDER BY since_ms, id");
  if (!stmt) return stmt.error();
  stmt->Bind(1, at_ms);
  auto read = stmt->ForEachRow([&]() -> Status {
    LatchedFinding l;
    l.id = stmt->Int(0);
    l.finding_id = stmt->Text(1);
    if (stmt->Int(2) != 0) l.xid = static_cast<int>(stmt->Int(2));
    l.uuid = stmt->Text(3);
    l.serial = stmt->Text(4);
    l.gpu = stmt->Text(5);
    l.boots = static_cast<int>(stmt->Int(6));
    l.after_reboots = static_cast<int>(stmt->Int(7));
    l.first_seen = FromMs(stmt->Int(8));
    l.since = FromMs(stmt->Int(9));
    l.title_en = stmt->Text(10);
    l.title_zh = stmt->Text(11);
    out.push_back(std::move(l));
    return OkStatus();
  });
  if (!read) return read.error();
  return out;
}

}  // namespace gpudoctor
