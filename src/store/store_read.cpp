// ReadWindow and Stats: raw readings for short windows, per-minute readings
// from roll-ups for long ones; exact summaries and throttle time either way.
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/gpu_fields.h"
#include "core/gpu_key.h"
#include "core/time_format.h"
#include "store/column_names.h"
#include "store/rollup.h"
#include "store/sample_codec.h"
#include "store/latch_rows.h"
#include "store/store_sqlite.h"

namespace gpudoctor {

namespace {

// Windows longer than this come back as per-minute readings.
constexpr std::int64_t kRawWindowMs = 3 * 3600'000;

struct Range {
  std::int64_t from_ms;
  std::int64_t to_ms;  // inclusive
};

// The rows of `set` with from_ms <= time <= to_ms, as a set of their own.
ColumnSet SliceRows(const ColumnSet& set, Range range) {
  auto begin = static_cast<std::size_t>(
      std::lower_bound(set.times_ms.begin(), set.times_ms.end(), range.from_ms) -
      set.times_ms.begin());
  auto end = static_cast<std::size_t>(
      std::upper_bound(set.times_ms.begin(), set.times_ms.end(), range.to_ms) -
      set.times_ms.begin());
  if (begin == 0 && end == set.times_ms.size()) return set;
  ColumnSet out;
  if (begin >= end) return out;
  out.times_ms.assign(set.times_ms.begin() + begin, set.times_ms.begin() + end);
  for (const Column& c : set.columns) {
    Column s;
    s.name = c.name;
    s.type = c.type;
    auto skip = std::count(c.present.begin(), c.present.begin() + begin, true);
    auto take = std::count(c.present.begin() + begin, c.present.begin() + end, true);
    if (take == 0) continue;
    s.present.assign(c.present.begin() + begin, c.present.begin() + end);
    switch (c.type) {
      case ColumnType::kInt:
        s.ints.assign(c.ints.begin() + skip, c.ints.begin() + skip + take);
        break;
      case ColumnType::kReal:
        s.reals.assign(c.reals.begin() + skip, c.reals.begin() + skip + take);
        break;
      case ColumnType::kText:
        s.texts.assign(c.texts.begin() + skip, c.texts.begin() + skip + take);
        break;
    }
    out.columns.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(separator, start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

KernelEventKind KindFromName(const std::string& name) {
  for (int k = 0; k <= static_cast<int>(kLastKernelEventKind); ++k) {
    if (name == KernelEventKindName(static_cast<KernelEventKind>(k))) {
      return static_cast<KernelEventKind>(k);
    }
  }
  return KernelEventKind::kXid;
}

std::map<std::string, MetricSummary> Summaries(const std::map<std::int64_t, MinuteAgg>& minutes) {
  std::map<std::string, MetricSummary> out;
  for (const GpuField& field : ScalarGpuFields()) {
    if (std::holds_alternative<BoolMember>(field.member) ||
        std::holds_alternative<TextMember>(field.member)) {
      continue;
    }
    std::size_t id = ColumnId(field.name);
    FieldAgg total;
    for (const auto& [m, agg] : minutes) {
      if (id < agg.fields.size()) total.Merge(agg.fields[id], false);
    }
    if (total.count == 0) continue;
    out[std::string(field.name)] =
        MetricSummary{static_cast<std::size_t>(total.count), total.min,
                      total.sum / static_cast<double>(total.count), total.max};
  }
  return out;
}

bool Wanted(const std::vector<std::string>& wanted, const std::string& bus_id) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), bus_id) != wanted.end();
}

// A GPU lost before anything read its bus id is recorded under "index:N";
// when it answers again (after a restart of the agent) its samples go under
// its bus id. The two rows are one GPU: each "index:N" row that exactly one
// row with a bus id and the same index matches is read as part of it. The
// map: "index:N" -> that bus id.
template <typename Rows>
std::map<std::string, std::string> UnnamedRowsOf(const Rows& rows) {
  std::map<std::string, std::string> out;
  for (const auto& [key, row] : rows) {
    if (!IsIndexKey(key)) continue;
    std::string named;
    int matches = 0;
    for (const auto& [other, other_row] : rows) {
      if (IsIndexKey(other) || other_row.identity.index != row.identity.index) continue;
      named = other;
      ++matches;
    }
    if (matches == 1) out[key] = named;
  }
  return out;
}

}  // namespace

std::string SqliteStore::DamagedPart(const std::string& gpu, std::int64_t from_ms,
                                     std::int64_t to_ms, const Error& error) const {
  return path_ + ": the samples of GPU " + gpu + " from " + FormatRfc3339(FromMs(from_ms)) +
         " to " + FormatRfc3339(FromMs(to_ms)) + " are damaged (" + error.message +
         ") and left out";
}

Result<StoredWindow> SqliteStore::ReadWindow(WallTime from, WallTime to,
                                             const std::vector<std::string>& gpu_bus_ids) {
  auto window = ReadWindowOnce(from, to, gpu_bus_ids);
  // SQLite's "database disk image is malformed" alone does not say the file
  // was left alone nor what to do.
  if (!window && window.error().code == ErrorCode::kCorrupt &&
      window.error().message.find("damaged") == std::string::npos) {
    return DamagedStore(window.error().message);
  }
  return window;
}

Result<StoredWindow> SqliteStore::ReadWindowOnce(WallTime from, WallTime to,
                                                 const std::vector<std::string>& gpu_bus_ids) {
  std::int64_t from_ms = ToMs(from);
  std::int64_t to_ms = ToMs(to);
  if (to_ms < from_ms) return Error{ErrorCode::kInvalid, "window ends before it starts"};
  if (options_.read_only) {
    if (auto loaded = LoadState(); !loaded) return loaded.error();
  }
  StoredWindow window;
  window.downsampled = to_ms - from_ms > kRawWindowMs;
  // A page SQLite cannot read (bytes overwritten on disk) costs the part of
  // the window it held, not the report: noted, and the rest is read.
  auto unreadable = [&](const Error& e, const GpuRow* gpu, const std::string& what) {
    if (e.code != ErrorCode::kCorrupt) return false;
    window.damaged.push_back({gpu ? gpu->bus_id : "", gpu ? gpu->identity.uuid : "",
                              gpu ? gpu->identity.index : 0u,
                              path_ + ": " + what + " are damaged: not all could be read (" +
                                  e.message + "); the rest is shown"});
    return true;
  };
  // Minutes wholly inside the window come from roll-ups when downsampled;
  // the partial minutes at both ends, and pending samples, from raw.
  std::int64_t inner_from = from_ms + ((kMinuteMs - from_ms % kMinuteMs) % kMinuteMs);
  std::int64_t inner_to = to_ms - (to_ms + 1) % kMinuteMs;  // last ms of the last whole minute
  std::vector<Range> raw_ranges;
  if (window.downsampled) {
    raw_ranges = {{from_ms, inner_from - 1}, {inner_to + 1, to_ms}};
  } else {
    raw_ranges = {{from_ms, to_ms}};
  }
  const std::map<std::string, std::string> unnamed = UnnamedRowsOf(gpus_);
  for (const auto& [key, gpu] : gpus_) {
    if (unnamed.count(key) || !Wanted(gpu_bus_ids, key)) continue;
    // This GPU's row and the rows of its samples from before its bus id
    // was known.
    std::vector<const GpuRow*> rows = {&gpu};
    for (const auto& [alias, named] : unnamed) {
      if (named == key) rows.push_back(&gpus_.at(alias));
    }
    std::vector<ColumnSet> segments;
    for (const GpuRow* row : rows) {
      const std::string& row_key = row->bus_id;
      for (const Range& range : raw_ranges) {
        if (range.to_ms < range.from_ms) continue;
        auto chunks = db_->Cached(
            "SELECT blob, t_start, t_end FROM chunks WHERE gpu=? AND t_end >= ? AND t_start <= ? "
            "ORDER BY t_start");
        if (!chunks) return chunks.error();
        (*chunks)->Bind(1, row->id).Bind(2, range.from_ms).Bind(3, range.to_ms);
        auto read = (*chunks)->ForEachRow([&]() -> Status {
          auto set = DecodeColumnSet((*chunks)->Blob(0));
          if (!set) {
            window.damaged.push_back(
                {row_key, row->identity.uuid, row->identity.index,
                 DamagedPart(row_key, (*chunks)->Int(1), (*chunks)->Int(2), set.error())});
            return OkStatus();
          }
          segments.push_back(SliceRows(*set, range));
          return OkStatus();
        });
        if (!read && !unreadable(read.error(), row, "the sealed samples of GPU " + row_key)) {
          return read.error();
        }
      }
      auto pending = ReadPending(row->id, from_ms, to_ms);
      if (!pending && !unreadable(pending.error(), row, "the latest samples of GPU " + row_key)) {
        return pending.error();
      }
      if (pending && !pending->times_ms.empty()) segments.push_back(std::move(*pending));
    }
    // Rows read one after the other: their samples in time order.
    std::stable_sort(segments.begin(), segments.end(), [](const ColumnSet& a, const ColumnSet& b) {
      if (a.times_ms.empty() || b.times_ms.empty()) return !a.times_ms.empty() && b.times_ms.empty();
      return a.times_ms.front() < b.times_ms.front();
    });

    std::map<std::int64_t, MinuteAgg> minutes;
    GpuSeries series;
    series.key = key;
    for (const ColumnSet& seg : segments) {
      if (seg.times_ms.empty()) continue;
      MergeMinutes(minutes, AggregateMinutes(seg));
      if (window.downsampled) continue;
      auto readings = DecodeSamples(seg);
      for (std::size_t i = 0; i < readings.size(); ++i) {
        series.readings.push_back(std::move(readings[i]));
        series.times.push_back(FromMs(seg.times_ms[i]));
      }
    }
    if (window.downsampled && inner_to > inner_from) {
      for (const GpuRow* row : rows) {
        const std::string& row_key = row->bus_id;
        auto rollups = db_->Cached(
            "SELECT blob, t_start, t_end FROM rollups WHERE gpu=? AND t_end >= ? AND t_start <= ? "
            "ORDER BY t_start");
        if (!rollups) return rollups.error();
        (*rollups)->Bind(1, row->id).Bind(2, inner_from).Bind(3, inner_to);
        auto got = (*rollups)->ForEachRow([&]() -> Status {
          auto decoded = DecodeRollups((*rollups)->Blob(0));
          if (!decoded) {
            window.damaged.push_back(
                {row_key, row->identity.uuid, row->identity.index,
                 DamagedPart(row_key, (*rollups)->Int(1), (*rollups)->Int(2), decoded.error())});
            return OkStatus();
          }
          std::erase_if(*decoded, [&](const MinuteAgg& m) {
            return m.minute_ms < inner_from || m.minute_ms > inner_to;
          });
          MergeMinutes(minutes, std::move(*decoded));
          return OkStatus();
        });
        if (!got && !unreadable(got.error(), row, "the per-minute roll-ups of GPU " + row_key)) {
          return got.error();
        }
      }
      series.readings.reserve(series.readings.size() + minutes.size());
      series.times.reserve(series.times.size() + minutes.size());
      for (const auto& [m, agg] : minutes) {
        series.readings.push_back(MinuteReading(agg));
        series.times.push_back(FromMs(m));
      }
    }
    if (minutes.empty()) continue;
    ThrottleTime throttle;
    throttle.pci_bus_id = key;
    for (const auto& [m, agg] : minutes) {
      for (const auto& [reason, s] : agg.throttle_s) throttle.seconds_by_reason[reason] += s;
      throttle.sampled_seconds += agg.sampled_s;
      WallTime first = FromMs(agg.first_ms);
      WallTime last = FromMs(agg.last_ms);
      if (!window.first_sample || first < *window.first_sample) window.first_sample = first;
      if (!window.last_sample || last > *window.last_sample) window.last_sample = last;
    }
    window.timeline.throttled.push_back(std::move(throttle));
    window.summaries[key] = Summaries(minutes);
    for (GpuStatus& r : series.readings) {
      if (r.pci_bus_id.empty()) r.pci_bus_id = gpu.identity.pci_bus_id;
      if (r.name.empty()) r.name = gpu.identity.name;
      if (r.uuid.empty()) r.uuid = gpu.identity.uuid;
    }
    if (!series.readings.empty()) window.gpus.push_back(std::move(series));
  }
  std::stable_sort(
      window.gpus.begin(), window.gpus.end(),
      [](const GpuSeries& a, const GpuSeries& b) { return a.latest().index < b.latest().index; });
  if (auto events = ReadEvents(from_ms, to_ms, gpu_bus_ids, window.events);
      !events && !unreadable(events.error(), nullptr, "the events")) {
    return events.error();
  }
  if (auto findings = ReadFindings(from_ms, to_ms, gpu_bus_ids, window.timeline.findings);
      !findings && !unreadable(findings.error(), nullptr, "the finding intervals")) {
    return findings.error();
  }
  if (auto latched = ReadOpenLatches(*db_, to_ms); !latched) {
    if (!unreadable(latched.error(), nullptr, "the latched findings")) return latched.error();
  } else {
    for (auto& l : *latched) {
      const bool selected = gpu_bus_ids.empty() || std::find(gpu_bus_ids.begin(), gpu_bus_ids.end(),
                                                             l.gpu) != gpu_bus_ids.end();
      if (selected) window.latched.push_back(std::move(l));
    }
  }
  // Intervals the agent kept under "index:N" are of the GPU read with it.
  for (FindingInterval& f : window.timeline.findings) {
    std::vector<std::string> gpus;
    for (const std::string& g : f.gpus) {
      auto it = unnamed.find(g);
      const std::string& name = it == unnamed.end() ? g : it->second;
      if (std::find(gpus.begin(), gpus.end(), name) == gpus.end()) gpus.push_back(name);
    }
    f.gpus = std::move(gpus);
  }
  if (auto rdma = ReadRdma(from_ms, to_ms, window);
      !rdma && !unreadable(rdma.error(), nullptr, "the RDMA port readings")) {
    return rdma.error();
  }
  return window;
}

Status SqliteStore::ReadEvents(std::int64_t from_ms, std::int64_t to_ms,
                                     const std::vector<std::string>& gpu_bus_ids,
                                     std::vector<KernelEvent>& out) {
  // A version-1 store opened read-only has no gpu_number column.
  auto stmt = db_->Cached(
      std::string("SELECT t_ms, time_known, kind, code, bus_id, pid, process, message, "
                  "continuation, count, last_t_ms, monotonic_s, last_monotonic_s, source_file, "
                  "source_line, detail, ") +
      (schema_version_ >= 2 ? "gpu_number" : "NULL") +
      " FROM events WHERE t_ms >= ? AND t_ms <= ? ORDER BY t_ms, id");
  if (!stmt) return stmt.error();
  Statement& s = **stmt;
  s.Bind(1, from_ms).Bind(2, to_ms);
  return s.ForEachRow([&]() -> Status {
    KernelEvent e;
    if (s.Int(1) != 0) e.time = FromMs(s.Int(0));
    e.kind = KindFromName(s.Text(2));
    if (!s.IsNull(3)) e.code = static_cast<int>(s.Int(3));
    e.pci_bus_id = s.Text(4);
    if (!e.pci_bus_id.empty() && !Wanted(gpu_bus_ids, e.pci_bus_id)) return OkStatus();
    e.pid = s.OptionalInt(5);
    e.process = s.Text(6);
    e.message = s.Text(7);
    e.continuation = Split(s.Text(8), '\n');
    e.count = static_cast<std::size_t>(s.Int(9));
    if (!s.IsNull(10)) e.last_time = FromMs(s.Int(10));
    if (!s.IsNull(11)) e.monotonic_s = s.Real(11);
    if (!s.IsNull(12)) e.last_monotonic_s = s.Real(12);
    e.source.file = s.Text(13);
    e.source.line = static_cast<std::size_t>(s.Int(14));
    e.detail = s.Text(15);
    if (!s.IsNull(16)) e.gpu_number = static_cast<int>(s.Int(16));
    out.push_back(std::move(e));
    return OkStatus();
  });
}

Status SqliteStore::ReadFindings(std::int64_t from_ms, std::int64_t to_ms,
                                       const std::vector<std::string>& gpu_bus_ids,
                                       std::vector<FindingInterval>& out) {
  // An older store opened read-only has no action column (version 4).
  auto stmt = db_->Cached(
      std::string("SELECT finding_id, gpus, severity, title_en, title_zh, start_ms, end_ms, ") +
      (schema_version_ >= 4 ? "action" : "NULL") +
      " FROM findings WHERE start_ms <= ? AND (end_ms IS NULL OR end_ms >= ?) ORDER BY start_ms, id");
  if (!stmt) return stmt.error();
  Statement& s = **stmt;
  s.Bind(1, to_ms).Bind(2, from_ms);
  return s.ForEachRow([&]() -> Status {
    FindingInterval f;
    f.finding_id = s.Text(0);
    f.gpus = Split(s.Text(1), ',');
    if (!gpu_bus_ids.empty() && !f.gpus.empty() &&
        std::none_of(f.gpus.begin(), f.gpus.end(),
                     [&](const std::string& g) { return Wanted(gpu_bus_ids, g); })) {
      return OkStatus();
    }
    f.severity = static_cast<Severity>(std::clamp<std::int64_t>(s.Int(2), 0, 3));
    f.title.en = s.Text(3);
    f.title.zh = s.Text(4);
    f.start = FromMs(s.Int(5));
    if (!s.IsNull(6)) f.end = FromMs(s.Int(6));
    if (!s.IsNull(7)) f.recommended = RecoveryActionOfCode(s.Int(7));
    out.push_back(std::move(f));
    return OkStatus();
  });
}

Result<std::int64_t> SqliteStore::CountEvents(KernelEventKind kind, WallTime from, WallTime to) {
  auto stmt = db_->Cached("SELECT count(*) FROM events WHERE kind = ? AND t_ms >= ? AND t_ms <= ?");
  if (!stmt) return stmt.error();
  Statement& s = **stmt;
  s.Bind(1, std::string_view(KernelEventKindName(kind))).Bind(2, ToMs(from)).Bind(3, ToMs(to));
  std::int64_t n = 0;
  auto done = s.ForEachRow([&]() -> Status {
    n = s.Int(0);
    return OkStatus();
  });
  if (!done) return done.error();
  return n;
}

StoreStats SqliteStore::Stats() {
  StoreStats stats;
  stats.file_bytes = FileBytes();
  auto count = [&](const char* sql) -> std::int64_t {
    auto v = db_->QueryInt(sql);
    return v ? *v : 0;
  };
  stats.raw_samples =
      count("SELECT coalesce(sum(n), 0) FROM chunks") + count("SELECT count(*) FROM pending");
  stats.rollup_minutes = count("SELECT coalesce(sum(minutes), 0) FROM rollups");
  if (schema_version_ >= 3) {
    stats.rdma_readings = count("SELECT coalesce(sum(n), 0) FROM rdma_chunks") +
                          count("SELECT count(*) FROM rdma_pending");
  }
  stats.events = count("SELECT count(*) FROM events");
  stats.finding_intervals = count("SELECT count(*) FROM findings");
  auto oldest = db_->Prepare(
      "SELECT min(t), max(t) FROM (SELECT min(t_start) AS t FROM chunks UNION ALL "
      "SELECT max(t_end) FROM chunks UNION ALL SELECT min(t_start) FROM rollups UNION ALL "
      "SELECT max(t_end) FROM rollups UNION ALL SELECT min(t_ms) FROM pending UNION ALL "
      "SELECT max(t_ms) FROM pending)");
  if (oldest) {
    auto row = oldest->Step();
    if (row && *row && !oldest->IsNull(0)) {
      stats.oldest = FromMs(oldest->Int(0));
      stats.newest = FromMs(oldest->Int(1));
    }
  }
  stats.writes_stopped = writes_stopped_;
  stats.file_gone = file_gone_;
  stats.last_error = file_gone_ ? gone_error_ : last_error_;
  return stats;
}

}  // namespace gpudoctor
