#include "store/latch_ack.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "core/gpu_key.h"
#include "core/time_format.h"
#include "core/utf8.h"
#include "store/latch_rows.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/store_sqlite.h"

namespace gpudoctor {
namespace {
namespace latch_ack_detail {

Result<std::unique_ptr<Db>> OpenForAck(const std::string& data_dir) {
  const std::string path = data_dir + "/" + kStoreFile;
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    return Error{ErrorCode::kNotFound,
                 path +
                     ": no gpudoctor store here (has `gpudoctor agent` run with this data "
                     "directory?)"};
  }
  if (S_ISLNK(st.st_mode)) {
    return Error{ErrorCode::kPermission, path + ": is a symbolic link; refused"};
  }
  auto db = Db::Open(path, false);
  if (!db) return db.error();
  return db;
}

// The NVML index the store last recorded for each bus id.
std::map<std::string, unsigned> Indexes(Db& db) {
  std::map<std::string, unsigned> out;
  auto stmt = db.Prepare("SELECT bus_id, gpu_index FROM gpus");
  if (!stmt) return out;
  (void)stmt->ForEachRow([&]() -> Status {
    out[stmt->Text(0)] = static_cast<unsigned>(stmt->Int(1));
    return OkStatus();
  });
  return out;
}

bool Matches(const LatchedFinding& l, const AckRequest& r,
             const std::map<std::string, unsigned>& indexes) {
  if (!r.finding.empty() && r.finding != "gpu.needs_inspection" && r.finding != l.finding_id) {
    return false;
  }
  if (r.gpu.empty()) return true;
  auto it = indexes.find(l.gpu);
  // An index the store does not know matches nothing (never index 0).
  const unsigned index = it == indexes.end() ? ~0u : it->second;
  return GpuSelectorNames(r.gpu, index, IsIndexKey(l.gpu) ? "" : l.gpu, l.uuid);
}

// Outside text as one printable line of at most 500 bytes (valid UTF-8 kept
// whole: cut at a character boundary).
std::string OneLine(std::string_view text) {
  std::string s = ToPrintableText(text);
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  if (s.size() > 500) {
    std::size_t cut = 500;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s.resize(cut);
  }
  return s;
}

std::string Listed(const std::vector<LatchedFinding>& latches) {
  if (latches.empty()) return "nothing is latched";
  std::string out = "latched now: ";
  for (std::size_t i = 0; i < latches.size(); ++i) {
    out += (i ? "; " : "") + DescribeLatch(latches[i]);
  }
  return out;
}

}  // namespace latch_ack_detail
}  // namespace

std::string DescribeLatch(const LatchedFinding& l) {
  return fmt::format("gpu.needs_inspection on GPU {}{} for {}{} since {}", l.gpu,
                     l.uuid.empty() ? std::string() : " (" + l.uuid + ")", l.finding_id,
                     l.xid ? fmt::format(" (Xid {})", *l.xid) : std::string(),
                     FormatRfc3339(l.since));
}

Result<std::vector<LatchedFinding>> ListOpenLatches(const std::string& data_dir, WallTime now) {
  auto db = latch_ack_detail::OpenForAck(data_dir);
  if (!db) return db.error();
  return ReadOpenLatches(**db, ToMs(now));
}

Result<std::vector<LatchedFinding>> AcknowledgeLatches(const std::string& data_dir,
                                                       const AckRequest& request, WallTime now) {
  if (request.reason.empty() || request.reason.find_first_not_of(" \t") == std::string::npos) {
    return Error{ErrorCode::kInvalid,
                 "--reason: say why the latch can be cleared (what was "
                 "inspected, repaired or replaced)"};
  }
  auto opened = latch_ack_detail::OpenForAck(data_dir);
  if (!opened) return opened.error();
  Db& db = **opened;
  if (auto begun = db.Exec("BEGIN IMMEDIATE"); !begun) return begun.error();
  auto fail = [&](Error e) -> Result<std::vector<LatchedFinding>> {
    (void)db.Exec("ROLLBACK");
    return e;
  };
  auto open = ReadOpenLatches(db, ToMs(now));
  if (!open) return fail(open.error());
  const auto indexes = latch_ack_detail::Indexes(db);
  std::vector<LatchedFinding> chosen;
  std::set<std::string> gpus;
  for (const auto& l : *open) {
    if (!latch_ack_detail::Matches(l, request, indexes)) continue;
    chosen.push_back(l);
    gpus.insert(l.gpu);
  }
  const std::string named =
      (request.finding.empty() ? std::string("gpu.needs_inspection") : request.finding) +
      (request.gpu.empty() ? std::string() : " --gpu " + request.gpu);
  if (chosen.empty()) {
    return fail(Error{ErrorCode::kNotFound, fmt::format("{}: no latched finding matches ({})",
                                                        named, latch_ack_detail::Listed(*open))});
  }
  if (gpus.size() > 1 && request.gpu.empty()) {
    std::string list;
    for (const auto& g : gpus) list += (list.empty() ? "" : ", ") + g;
    return fail(Error{
        ErrorCode::kInvalid,
        fmt::format("{}: latched on {} GPUs ({}); name one with --gpu", named, gpus.size(), list)});
  }
  const std::int64_t now_ms = ToMs(now);
  const std::string who = latch_ack_detail::OneLine(request.who.empty() ? "someone" : request.who);
  const std::string reason = latch_ack_detail::OneLine(request.reason);
  const std::string via = latch_ack_detail::OneLine(request.via);
  for (const auto& l : chosen) {
    auto update = db.Prepare(
        "UPDATE latches SET acked_ms=?, acked_by=?, ack_reason=?, ack_via=? WHERE id=? AND "
        "acked_ms IS NULL");
    if (!update) return fail(update.error());
    update->Bind(1, now_ms).Bind(2, who).Bind(3, reason).Bind(4, via);
    update->Bind(5, l.id);
    if (auto r = update->Run(); !r) return fail(r.error());
    auto event = db.Prepare(
        "INSERT INTO events(t_ms, time_known, kind, code, bus_id, message, count, source_file, "
        "source_line, detail) VALUES(?,1,?,?,?,?,1,'agent',0,?)");
    if (!event) return fail(event.error());
    event->Bind(1, now_ms).Bind(2, KernelEventKindName(KernelEventKind::kAcknowledged));
    event->Bind(3, l.xid ? std::optional<std::int64_t>(*l.xid) : std::nullopt);
    event->Bind(4, l.gpu);
    event->Bind(5,
                fmt::format("{} acknowledged {} (via {}): {}", who, DescribeLatch(l), via, reason));
    event->Bind(6, l.finding_id);
    if (auto r = event->Run(); !r) return fail(r.error());
  }
  if (auto committed = db.Exec("COMMIT"); !committed) return fail(committed.error());
  return chosen;
}

}  // namespace gpudoctor
