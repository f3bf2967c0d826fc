#include "prom/fleet_build.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <future>
#include <memory>
#include <set>
#include <thread>

#include "core/gpu_key.h"
#include "core/gpu_status.h"
#include "core/metric_fields.h"
#include "prom/node_identity.h"
#include "prom/prom_labels.h"
#include "prom/series_readings.h"
#include "rules/engine/engine.h"

namespace gpudoctor {
namespace {

using std::chrono::seconds;

double UnixSecondsOf(WallTime t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

std::string Secs(seconds s) { return std::to_string(std::max<long>(1, s.count())) + "s"; }

Severity SeverityOfVerdict(double v) {
  if (!std::isfinite(v) || v < 0.5) return Severity::kOk;
  if (v < 1.5) return Severity::kInfo;
  if (v < 2.5) return Severity::kWarning;
  return Severity::kCritical;
}

struct FleetQuery {
  std::string expr;
  bool range = false;
  WallTime at;    // instant
  WallTime from;  // range
  WallTime to;
  seconds step{60};
};

// The gauges whose extremes between two buckets matter: read per bucket
// with max_over_time (min_over_time for clocks) in one query of `or`ed
// native range functions; every other dcgm-exporter field is read as its
// value at each bucket's end (exact for counters), keeping its name. No
// subquery: both stay cheap on a large fleet.
enum class DcgmRead { kAtBucketEnd, kMaximum, kMinimum };

DcgmRead DcgmReadOf(const MetricField& f) {
  const std::string_view n = f.names.status_name;
  if (n == "clocks_sm_mhz" || n == "clocks_memory_mhz") return DcgmRead::kMinimum;
  if (n == "temperature_c" || n == "memory_temperature_c" || n == "power_draw_w" ||
      n == "clock_event_reasons_mask") {
    return DcgmRead::kMaximum;
  }
  return DcgmRead::kAtBucketEnd;
}

std::vector<std::string_view> DcgmNamesOf(const MetricField& f) {
  std::vector<std::string_view> names;
  for (std::string_view n : {f.names.dcgm.name, f.names.dcgm_alias}) {
    if (!n.empty()) names.push_back(n);
  }
  return names;
}

// The dcgm-exporter reads run as several queries side by side: one
// engine evaluates each query on one core, so the slowest query is the
// fleet's wait. Extremes in four groups (core and memory temperature;
// power; clocks; clock-event reasons), the other fields in two halves.
constexpr int kDcgmExtremeGroups = 4;
constexpr int kDcgmBucketEndGroups = 2;

int ExtremeGroupOf(const MetricField& f) {
  const std::string_view n = f.names.status_name;
  if (n == "temperature_c" || n == "memory_temperature_c") return 0;
  if (n == "power_draw_w") return 1;
  if (n == "clocks_sm_mhz" || n == "clocks_memory_mhz") return 2;
  return 3;
}

std::vector<std::string> DcgmBucketEndSelectors(const std::string& m) {
  std::vector<std::string> regex(kDcgmBucketEndGroups);
  int next = 0;
  for (const MetricField& f : MetricFields()) {
    if (DcgmReadOf(f) != DcgmRead::kAtBucketEnd) continue;
    std::string& re = regex[next++ % kDcgmBucketEndGroups];
    for (std::string_view n : DcgmNamesOf(f)) re += (re.empty() ? "" : "|") + std::string(n);
  }
  std::vector<std::string> out;
  for (const auto& re : regex) out.push_back(SelectorOfNames(re, m));
  return out;
}

std::vector<std::string> DcgmExtremesExprs(const std::string& m, const std::string& bucket) {
  std::vector<std::string> exprs(kDcgmExtremeGroups);
  for (const MetricField& f : MetricFields()) {
    const DcgmRead read = DcgmReadOf(f);
    if (read == DcgmRead::kAtBucketEnd) continue;
    std::string& expr = exprs[ExtremeGroupOf(f)];
    for (std::string_view n : DcgmNamesOf(f)) {
      if (!expr.empty()) expr += " or ";
      expr += "label_replace(" + std::string(read == DcgmRead::kMinimum ? "min" : "max") +
              "_over_time(" + Selector(n, m) + "[" + bucket + "]), \"gpudoctor_field\", \"" +
              std::string(n) + "\", \"\", \"\")";
    }
  }
  return exprs;
}

enum QueryId {
  kVerdictNow,
  kVerdictWorst,
  kAgentLastSample,
  kFindingsWindow,
  kFindingsNow,
  kCountersMax,
  kCountersStart,
  kLostWindow,
  kLostNow,
  kPeaks,
  kStrip,
  kDcgmLastSeen,
  kDcgmXid,
  kDcgmXidCount,  // and DCGM_EXP_GPU_HEALTH_STATUS's failing and warning watches
  kQueryCount,
  // Then the dcgm-exporter field reads (DcgmExtremesExprs, DcgmBucketEndSelectors).
  kFirstDcgmRead = kQueryCount
};

// The start of the oldest stretch. Stretches are laid back from the
// window's end, so that the newest always ends at it; when the window is no
// whole number of stretches the oldest begins a little before the window.
WallTime GridStart(const FleetRequest& r, seconds bucket) {
  return r.to - bucket * static_cast<long>(r.strip_buckets);
}

std::vector<FleetQuery> PlanQueries(const FleetRequest& r, const std::string& m, seconds bucket) {
  const WallTime first_end = GridStart(r, bucket) + bucket;  // the oldest stretch's end
  const seconds window = std::chrono::duration_cast<seconds>(r.to - r.from);
  const std::string w = "[" + Secs(window) + "]";
  const std::string counters = "gpudoctor_xid_events_total|gpudoctor_gpu_throttle_seconds_total";
  const std::string lost = "state=~\"lost|hung\"";
  std::vector<FleetQuery> q(kQueryCount);
  auto instant = [&](QueryId id, std::string expr, WallTime at) {
    q[id].expr = std::move(expr);
    q[id].at = at;
  };
  auto range = [&](QueryId id, std::string expr, WallTime from, seconds step) {
    q[id].expr = std::move(expr);
    q[id].range = true;
    q[id].from = from;
    q[id].to = r.to;
    q[id].step = step;
  };
  const std::string verdict = Selector("gpudoctor_gpu_verdict", m);
  instant(kVerdictNow, verdict, r.to);
  instant(kVerdictWorst, "max_over_time(" + verdict + w + ")", r.to);
  // Twice the window back: a node that stopped before the window began is
  // still seen, as stale.
  const std::string lookback = "[" + Secs(window * 2) + "]";
  instant(kAgentLastSample,
          "max_over_time(" + Selector("gpudoctor_last_sample_timestamp_seconds", m) + lookback +
              ")",
          r.to);
  instant(kFindingsWindow, "max_over_time(" + Selector("gpudoctor_finding_active", m) + w + ")",
          r.to);
  instant(kFindingsNow, Selector("gpudoctor_finding_active", m), r.to);
  instant(kCountersMax, "max_over_time(" + SelectorOfNames(counters, m) + w + ")", r.to);
  instant(kCountersStart, SelectorOfNames(counters, m), r.from);
  instant(kLostWindow, "max_over_time(" + Selector("gpudoctor_gpu_state", m, lost) + w + ") > 0",
          r.to);
  instant(kLostNow, Selector("gpudoctor_gpu_state", m, lost) + " > 0", r.to);
  instant(kPeaks,
          "label_replace(max_over_time(" + Selector("gpudoctor_gpu_temperature_celsius", m) + w +
              "), \"gpudoctor_field\", \"temperature\", \"\", \"\") or label_replace(max_over_time(" +
              Selector("gpudoctor_gpu_power_draw_watts", m) + w +
              "), \"gpudoctor_field\", \"power\", \"\", \"\")",
          r.to);
  range(kStrip,
        "max by (" + std::string(kNodeLabelList) + ") (max_over_time(" + verdict + "[" +
            Secs(bucket) + "]))",
        first_end, bucket);
  std::vector<std::string> reads = DcgmExtremesExprs(m, Secs(bucket));
  for (auto& sel : DcgmBucketEndSelectors(m)) reads.push_back(std::move(sel));
  for (auto& expr : reads) {
    FleetQuery read;
    read.expr = std::move(expr);
    read.range = true;
    read.from = first_end;
    read.to = r.to;
    read.step = bucket;
    q.push_back(std::move(read));
  }
  // The exact time of the last sample of each GPU that reports at the
  // window's end (within the engine's lookback): one cheap instant read. The
  // GPUs silent by then are read afterwards, over their last stretch only
  // (LastSamplesOfSilentGpus): a subquery over the whole window for every
  // GPU ran past Prometheus' timeout from 64 nodes on.
  instant(kDcgmLastSeen, "timestamp(" + Selector("DCGM_FI_DEV_GPU_TEMP", m) + ")", r.to);
  // At the scrape interval, one point before the window (a code held from
  // before is no new Xid) and the last at its end.
  const WallTime xid_from = FirstPointAtOrBefore(r.from - r.resolution, r.to, r.resolution);
  range(kDcgmXid, Selector("DCGM_FI_DEV_XID_ERRORS", m) + " != 0", xid_from, r.resolution);
  // dcgm-exporter's own series in one query (comparisons keep the names):
  // the Xid counts by code, the health watches not passing.
  range(kDcgmXidCount,
        "(" + Selector("DCGM_EXP_XID_ERRORS_COUNT", m) + " > 0) or (" +
            Selector("DCGM_EXP_GPU_HEALTH_STATUS", m) + " > 0)",
        xid_from, r.resolution);
  return q;
}

// Queries in flight at once. Each engine evaluates a query on one core, so
// some run side by side; but VictoriaMetrics answers 503 to requests beyond
// -search.maxConcurrentRequests once they have waited
// -search.maxQueueDuration (defaults: twice its cores, 10 s), which on a
// 2-core server is 4: more at once loses answers under load.
constexpr std::size_t kQueriesInFlight = 4;

// Threads that run the rules over dcgm-exporter's nodes, at most.
constexpr std::size_t kDiagnosisThreads = 8;

// The queries in `order`, at most kQueriesInFlight at once; the answers in
// the queries' order.
std::vector<Result<PromAnswer>> RunInOrder(const PromClient& client,
                                           const std::vector<FleetQuery>& queries,
                                           const std::vector<std::size_t>& order) {
  std::vector<std::optional<Result<PromAnswer>>> answers(queries.size());
  std::atomic<std::size_t> next{0};
  auto work = [&]() {
    for (std::size_t k; (k = next++) < order.size();) {
      const FleetQuery& q = queries[order[k]];
      answers[order[k]] =
          q.range ? client.QueryRange(q.expr, q.from, q.to, q.step) : client.Query(q.expr, q.at);
    }
  };
  std::vector<std::future<void>> workers;
  for (std::size_t w = 0; w < std::min(kQueriesInFlight, queries.size()); ++w) {
    workers.push_back(std::async(std::launch::async, work));
  }
  for (auto& w : workers) w.get();
  std::vector<Result<PromAnswer>> out;
  for (auto& a : answers) out.push_back(std::move(*a));
  return out;
}

std::vector<Result<PromAnswer>> RunAll(const PromClient& client,
                                       const std::vector<FleetQuery>& queries) {
  // The heaviest first (the dcgm-exporter reads, the plain fields' two
  // before the extremes' four, then its last-seen and Xid queries), so that
  // the light ones fill in behind them and the longest is not the last to
  // start.
  std::vector<std::size_t> order;
  for (std::size_t i = queries.size(); i-- > kFirstDcgmRead;) order.push_back(i);
  for (std::size_t i : {kDcgmLastSeen, kDcgmXid, kDcgmXidCount}) order.push_back(i);
  for (std::size_t i = 0; i < kDcgmLastSeen; ++i) order.push_back(i);
  return RunInOrder(client, queries, order);
}

// Label sets without __name__ (and the field label the extremes' reads
// add), to pair a counter's value at the window's start with its maximum in
// it, and a GPU's temperature read with its last sample's time.
std::string SeriesIdentity(const PromSeries& s) {
  std::string id;
  for (const auto& [k, v] : s.labels) {
    if (k == "__name__" || k == "gpudoctor_field") continue;
    id += k + "=" + v + ";";
  }
  return id;
}

// Reads of the GPUs silent at the window's end, at most this many: their
// last stretches' ends, split at the widest gaps.
constexpr std::size_t kSilentGpuReads = 4;

// Seconds since the epoch of a wall time.
double EpochSeconds(WallTime t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// A regex matcher naming exactly these GPUs by UUID, or "" when one has no
// UUID of plain letters, digits and dashes (then the read takes every GPU).
std::string UuidMatcher(const std::vector<std::string>& uuids) {
  constexpr std::size_t kMostUuidsInOneMatcher = 256;
  if (uuids.empty() || uuids.size() > kMostUuidsInOneMatcher) return "";
  std::string regex;
  for (const std::string& u : uuids) {
    const bool plain = !u.empty() && std::all_of(u.begin(), u.end(), [](unsigned char c) {
      return std::isalnum(c) != 0 || c == '-';
    });
    if (!plain) return "";
    regex += (regex.empty() ? "" : "|") + u;
  }
  return "UUID=~\"" + regex + "\"";
}

// The exact time of the last sample of each GPU whose temperature series
// has data in the window but no sample at its end (kDcgmLastSeen does not
// hold it): its last sample lies in its last stretch with data, which ends
// at T, and nothing of it in the stretch after T (else a point at T + bucket
// would show it); after the last point, up to the window's end, the range
// reads have no point, so there it may have samples. For each group of such
// ends [lo, hi], one instant read at `at` = min(window end, hi + bucket) of
// the group's GPUs (by UUID where they have one): timestamp(X) (the newest
// sample within the lookback), or the newest that a subquery at the scrape
// resolution (below the engines' 5 min lookback) finds back to the stretch
// before lo. A GPU's time is taken only from its own group's read, so a
// failed read leaves its GPUs at their stretch's end, never at an older
// sample another group's read saw. Ends outside the window (a malformed
// answer) are left out. The times join kDcgmLastSeen's answer; the
// failures' messages are returned.
std::vector<std::string> LastSamplesOfSilentGpus(const PromClient& client, const FleetRequest& r,
                                                 seconds bucket, const std::string& m,
                                                 std::vector<Result<PromAnswer>>& a) {
  if (!a[kDcgmLastSeen]) return {};
  std::set<std::string> reporting;
  for (const auto& s : a[kDcgmLastSeen]->series) reporting.insert(SeriesIdentity(s));
  const double from_s = EpochSeconds(r.from), to_s = EpochSeconds(r.to);
  const auto bucket_s = static_cast<double>(bucket.count());
  struct Silent {
    double end_s = 0;  // the end of its last stretch with data
    std::string uuid;
  };
  std::map<std::string, Silent> silent;  // by identity
  for (std::size_t id = kFirstDcgmRead; id < a.size(); ++id) {
    if (!a[id]) continue;
    for (const auto& s : a[id]->series) {
      if (s.points.empty() || s.Label("gpudoctor_field") != "DCGM_FI_DEV_GPU_TEMP") continue;
      const double t = s.points.back().time_s;
      if (!std::isfinite(t) || t < from_s - bucket_s || t > to_s + bucket_s) continue;
      std::string key = SeriesIdentity(s);
      if (reporting.contains(key)) continue;
      Silent& g = silent[std::move(key)];
      g.end_s = std::max(g.end_s, t);
      g.uuid = s.Label("UUID");
    }
  }
  if (silent.empty()) return {};
  std::set<double> end_set;
  for (const auto& [key, g] : silent) end_set.insert(g.end_s);
  const std::vector<double> ends(end_set.begin(), end_set.end());
  // Split before the widest gaps between consecutive ends.
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < ends.size(); ++i) cuts.push_back(i);
  std::stable_sort(cuts.begin(), cuts.end(), [&](std::size_t x, std::size_t y) {
    return ends[x] - ends[x - 1] > ends[y] - ends[y - 1];
  });
  cuts.resize(std::min(cuts.size(), kSilentGpuReads - 1));
  cuts.push_back(ends.size());
  std::sort(cuts.begin(), cuts.end());
  const seconds sub{std::clamp<long>(r.resolution.count(), 1, 240)};
  std::vector<FleetQuery> reads;
  std::vector<std::size_t> order;
  std::vector<std::set<std::string>> members;  // the identities each read is for
  std::size_t first = 0;
  for (std::size_t cut : cuts) {
    const double lo = ends[first], hi = ends[cut - 1];
    first = cut;
    const double at = std::min(to_s, hi + bucket_s);
    std::set<std::string> keys;
    std::vector<std::string> uuids;
    for (const auto& [key, g] : silent) {
      if (g.end_s < lo || g.end_s > hi) continue;
      keys.insert(key);
      uuids.push_back(g.uuid);
    }
    const std::string temp = Selector("DCGM_FI_DEV_GPU_TEMP", m, UuidMatcher(uuids));
    const seconds span{static_cast<long>(std::ceil(at - lo)) + bucket.count() + sub.count()};
    FleetQuery q;
    q.expr = "timestamp(" + temp + ") or max_over_time(timestamp(" + temp + ")[" + Secs(span) +
             ":" + Secs(sub) + "])";
    q.at = WallTime{std::chrono::duration_cast<WallTime::duration>(std::chrono::duration<double>(at))};
    order.push_back(reads.size());
    reads.push_back(std::move(q));
    members.push_back(std::move(keys));
  }
  std::map<std::string, PromSeries> found;
  std::vector<std::string> errors;
  auto answers = RunInOrder(client, reads, order);
  for (std::size_t i = 0; i < answers.size(); ++i) {
    auto& answer = answers[i];
    if (!answer) {
      errors.push_back(answer.error().message);
      continue;
    }
    for (auto& s : answer->series) {
      if (s.points.empty()) continue;
      std::string key = SeriesIdentity(s);
      if (!members[i].contains(key)) continue;
      auto [it, added] = found.try_emplace(std::move(key), s);
      if (!added && s.points.front().value > it->second.points.front().value) it->second = s;
    }
  }
  for (auto& [key, s] : found) a[kDcgmLastSeen]->series.push_back(std::move(s));
  return errors;
}

class FleetAssembly {
 public:
  FleetAssembly(const FleetRequest& r, seconds bucket, const NodeIdentities& ids)
      : request_(r), bucket_(bucket), grid_start_(GridStart(r, bucket)), ids_(ids) {}

  std::string NodeOf(const PromSeries& s) const { return ids_.NodeOf(s.labels); }
  FleetGpuRow& Row(const PromSeries& s, FleetSource source) {
    return Row(NodeOf(s), GpuOfLabels(s.labels), source);
  }
  FleetGpuRow& Row(const std::string& node, const GpuLabels& g, FleetSource source) {
    return RowAt(node, g.Key(), g, source);
  }
  FleetGpuRow& RowAt(const std::string& node, const std::string& key, const GpuLabels& g,
                     FleetSource source) {
    FleetGpuRow& row = rows_[{node, key}];
    if (row.node.empty()) {
      row.node = node;
      row.pci_bus_id = g.pci_bus_id;
      row.gpu = g.gpu;
      row.uuid = g.uuid;
      row.model = g.model;
      row.source = source;
    }
    return row;
  }
  FleetNodeRow& Node(const std::string& name, FleetSource source) {
    FleetNodeRow& n = nodes_[name];
    if (n.node.empty()) {
      n.node = name;
      n.source = source;
      n.strip.assign(static_cast<std::size_t>(std::max(1, request_.strip_buckets)), std::nullopt);
    }
    return n;
  }
  bool HasAgent(const std::string& node) const {
    auto it = nodes_.find(node);
    return it != nodes_.end() && it->second.source == FleetSource::kGpudoctor;
  }
  std::optional<std::size_t> BucketOf(double t) const {
    const double from = UnixSecondsOf(grid_start_);
    const long i = std::lround((t - from) / static_cast<double>(bucket_.count())) - 1;
    if (i < 0 || i >= request_.strip_buckets) return std::nullopt;
    return static_cast<std::size_t>(i);
  }

  void AddAgentAnswers(const std::vector<Result<PromAnswer>>& a);
  void AddDcgmAnswers(const std::vector<Result<PromAnswer>>& a);
  FleetView Finish(FleetView view);

 private:
  // A node and its series of the dcgm reads (query id, series), in query order.
  using DcgmNodeSeries =
      std::pair<const std::string, std::vector<std::pair<std::size_t, const PromSeries*>>>;
  void DiagnoseDcgmSeries(const DcgmNodeSeries& node_series);
  void DiagnoseDcgmNode(const std::string& node, const SeriesReadings& readings);

  const FleetRequest& request_;
  seconds bucket_;
  WallTime grid_start_;  // the oldest stretch's start (GridStart)
  const NodeIdentities& ids_;
  std::map<std::pair<std::string, std::string>, FleetGpuRow> rows_;
  std::map<std::string, FleetNodeRow> nodes_;
  std::map<std::string, std::vector<FleetFinding>> host_findings_;
  std::map<std::pair<std::string, std::string>, double> dcgm_fresh_;  // node, UUID -> sample time
};

// The name the agent's findings give the row's GPU (core/gpu_key.h): its
// bus id, or "index:N" for a GPU lost before it gave one; empty when
// neither is known.
std::string KeyOfRow(const FleetGpuRow& row) {
  if (!row.pci_bus_id.empty()) return row.pci_bus_id;
  unsigned index = 0;
  auto [end, ec] = std::from_chars(row.gpu.data(), row.gpu.data() + row.gpu.size(), index);
  if (row.gpu.empty() || ec != std::errc() || end != row.gpu.data() + row.gpu.size()) return "";
  return GpuKeyOf("", index);
}

void AddFinding(FleetGpuRow& row, const std::string& id, Severity severity, const Text& title,
                bool now) {
  for (auto& f : row.findings) {
    if (f.id != id) continue;
    f.severity = std::max(f.severity, severity);
    f.active_now = f.active_now || now;
    if (f.title.en.empty()) f.title = title;
    return;
  }
  row.findings.push_back(FleetFinding{id, severity, title, now});
}

void FleetAssembly::AddAgentAnswers(const std::vector<Result<PromAnswer>>& a) {
  const double to_s = UnixSecondsOf(request_.to);
  for (const auto& s : a[kAgentLastSample]->series) {
    if (s.points.empty()) continue;
    FleetNodeRow& n = Node(NodeOf(s), FleetSource::kGpudoctor);
    const double t = s.points.front().value;
    if (t > 0) n.last_sample_age_s = std::max(0.0, to_s - t);
  }
  for (const auto& s : a[kVerdictWorst]->series) {
    Node(NodeOf(s), FleetSource::kGpudoctor);
    Row(s, FleetSource::kGpudoctor).worst = SeverityOfVerdict(s.points.front().value);
  }
  for (const auto& s : a[kVerdictNow]->series) {
    Row(s, FleetSource::kGpudoctor).verdict_now = SeverityOfVerdict(s.points.front().value);
  }
  for (QueryId id : {kFindingsWindow, kFindingsNow}) {
    for (const auto& s : a[id]->series) {
      const std::string node = NodeOf(s);
      const std::string fid = s.Label("id");
      const Severity sev = ParseSeverity(s.Label("severity")).value_or(Severity::kWarning);
      std::string gpus = s.Label("gpus");
      bool any = false;
      for (auto& [key, row] : rows_) {
        if (key.first != node) continue;
        const std::string name = KeyOfRow(row);
        if (name.empty() || ("," + gpus + ",").find("," + name + ",") == std::string::npos) continue;
        AddFinding(row, fid, sev, Text{}, id == kFindingsNow);
        any = true;
      }
      if (!any) {  // host-wide, or a GPU without a verdict series: on the node's row
        FleetNodeRow& n = Node(node, FleetSource::kGpudoctor);
        n.worst = std::max(n.worst, sev);
        host_findings_[node].push_back(FleetFinding{fid, sev, Text{}, id == kFindingsNow});
      }
    }
  }
  std::map<std::string, double> start;
  for (const auto& s : a[kCountersStart]->series) start[SeriesIdentity(s)] = s.points.front().value;
  for (const auto& s : a[kCountersMax]->series) {
    const double max = s.points.front().value;
    auto it = start.find(SeriesIdentity(s));
    double delta = it == start.end() ? max : max - it->second;
    if (delta < 0) delta = max;  // the agent restarted: its counter began again
    if (delta <= 0) continue;
    FleetGpuRow& row = Row(s, FleetSource::kGpudoctor);
    if (!s.Label("xid").empty()) {
      row.xid_counts[std::atoi(s.Label("xid").c_str())] += std::round(delta);
    } else if (!s.Label("reason").empty()) {
      row.throttled_seconds[s.Label("reason")] += delta;
    }
  }
  for (const auto& s : a[kLostWindow]->series) Row(s, FleetSource::kGpudoctor).lost_in_window = true;
  for (const auto& s : a[kLostNow]->series) Row(s, FleetSource::kGpudoctor).lost_now = true;
  for (const auto& s : a[kPeaks]->series) {
    FleetGpuRow& row = Row(s, FleetSource::kGpudoctor);
    (s.Label("gpudoctor_field") == "power" ? row.max_power_w : row.max_temperature_c) =
        s.points.front().value;
  }
  for (const auto& s : a[kStrip]->series) {
    FleetNodeRow& n = Node(NodeOf(s), FleetSource::kGpudoctor);
    for (const PromPoint& p : s.points) {
      if (auto b = BucketOf(p.time_s)) n.strip[*b] = SeverityOfVerdict(p.value);
    }
  }
}

void FleetAssembly::AddDcgmAnswers(const std::vector<Result<PromAnswer>>& a) {
  // Exact sample times of the GPUs that report now (within the engine's
  // lookback); the others' last bucket with data is their last sign of life.
  for (const auto& s : a[kDcgmLastSeen]->series) {
    const std::string node = NodeOf(s);
    if (HasAgent(node) || s.points.empty()) continue;
    const GpuLabels g = GpuOfLabels(s.labels);
    double& t = dcgm_fresh_[{node, g.uuid.empty() ? g.Key() : g.uuid}];
    t = std::max(t, s.points.front().value);  // an exporter's restart: its newest series
  }
  // Each node's series of the dcgm reads, in query order, so that readings
  // (a GpuStatus per GPU and stretch) are held for one node at a time, not
  // for the whole fleet at once.
  std::map<std::string, std::vector<std::pair<std::size_t, const PromSeries*>>> by_node;
  std::vector<std::size_t> ids;
  for (std::size_t id = kFirstDcgmRead; id < a.size(); ++id) ids.push_back(id);
  ids.push_back(kDcgmXid);
  ids.push_back(kDcgmXidCount);
  for (std::size_t id : ids) {
    for (const auto& s : a[id]->series) {
      std::string node = NodeOf(s);
      if (HasAgent(node)) continue;  // the agent's own verdicts win
      by_node[std::move(node)].emplace_back(id, &s);
    }
  }
  // The rules over the nodes on every core (the server has answered by
  // now): the nodes are independent, so each worker keeps the rows of its
  // own nodes, merged by key afterwards: the same rows as one node after
  // the other.
  std::vector<const DcgmNodeSeries*> work;
  for (const auto& entry : by_node) work.push_back(&entry);
  const std::size_t threads =
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kDiagnosisThreads);
  std::vector<std::unique_ptr<FleetAssembly>> helpers;
  for (std::size_t w = 1; w < std::min(threads, work.size()); ++w) {
    helpers.push_back(std::make_unique<FleetAssembly>(request_, bucket_, ids_));
    helpers.back()->dcgm_fresh_ = dcgm_fresh_;
  }
  std::atomic<std::size_t> next{0};
  auto diagnose = [&](FleetAssembly& into) {
    for (std::size_t k; (k = next++) < work.size();) into.DiagnoseDcgmSeries(*work[k]);
  };
  std::vector<std::future<void>> running;
  for (auto& h : helpers) running.push_back(std::async(std::launch::async, diagnose, std::ref(*h)));
  diagnose(*this);
  for (auto& r : running) r.get();
  for (auto& h : helpers) {
    rows_.merge(h->rows_);
    nodes_.merge(h->nodes_);
    host_findings_.merge(h->host_findings_);
  }
}

void FleetAssembly::DiagnoseDcgmSeries(const DcgmNodeSeries& node_series) {
  const auto& [node, series] = node_series;
  const double step_s = static_cast<double>(request_.resolution.count());
  const double from_s = UnixSecondsOf(request_.from);
  // Every series here is the node's: no need to name each one again.
  SeriesReadings readings([&node](const PromLabels&) { return node; });
  for (const auto& [id, s] : series) {
    if (id == kDcgmXid) {
      readings.AddDcgmXidSeries(*s, step_s, from_s);
    } else if (id == kDcgmXidCount && !s->Label("health_watch").empty()) {
      PromSeries in_window = *s;
      std::erase_if(in_window.points, [&](const PromPoint& p) { return p.time_s < from_s; });
      readings.AddDcgmHealthSeries(in_window);
    } else if (id == kDcgmXidCount) {
      readings.AddDcgmXidCountSeries(*s, step_s, from_s);
    } else {
      // Extremes carry the field in gpudoctor_field (functions drop the name).
      const std::string& field = s->Label("gpudoctor_field");
      readings.AddFieldSeries(*s, field.empty() ? s->Label("__name__") : field);
    }
  }
  for (const auto& name : readings.Nodes()) DiagnoseDcgmNode(name, readings);
}

void FleetAssembly::DiagnoseDcgmNode(const std::string& node, const SeriesReadings& readings) {
  DiagnosisInput input = readings.InputFor(node, request_.config, request_.from, request_.to);
  if (input.gpus.empty()) return;
  FleetNodeRow& n = Node(node, FleetSource::kDcgmExporter);
  const Diagnosis window = Diagnose(input);
  // The input without its readings, and a copy of it with only the readings
  // `keep` selects: copying every reading for each stretch cost more than
  // the rules.
  std::vector<GpuSeries> gpus = std::move(input.gpus);
  input.gpus.clear();
  const DiagnosisInput shell = input;
  input.gpus = std::move(gpus);
  auto readings_where = [&](auto keep) {
    DiagnosisInput part = shell;
    for (const GpuSeries& g : input.gpus) {
      GpuSeries kept;
      kept.key = g.key;
      for (std::size_t i = 0; i < g.readings.size(); ++i) {
        if (!g.times[i] || !keep(g, i)) continue;
        kept.readings.push_back(g.readings[i]);
        kept.times.push_back(g.times[i]);
      }
      if (!kept.readings.empty()) part.gpus.push_back(std::move(kept));
    }
    return part;
  };
  // Now: each GPU's last bucket alone, and the events in it.
  const WallTime last_from = request_.to - bucket_;
  DiagnosisInput last = readings_where([&](const GpuSeries& g, std::size_t i) {
    return i + 1 == g.readings.size() && *g.times[i] >= last_from;
  });
  std::erase_if(last.kernel->events,
                [&](const KernelEvent& e) { return !e.time || *e.time < last_from; });
  last.window_from = last_from;
  const Diagnosis now = Diagnose(last);
  for (const GpuSeries& g : input.gpus) {
    // The GPU's id in the readings: its bus id, else "gpu N" or its UUID.
    GpuLabels labels;
    labels.pci_bus_id = NormalizePciBusId(g.key) == g.key ? g.key : "";
    labels.gpu = std::to_string(g.latest().index);
    labels.uuid = g.latest().uuid;
    labels.model = g.latest().name;
    FleetGpuRow& row = RowAt(node, g.key, labels, FleetSource::kDcgmExporter);
    for (const auto& r : g.readings) {
      if (r.temperature_c) {
        row.max_temperature_c = std::max(row.max_temperature_c.value_or(-1e9), double(*r.temperature_c));
      }
      if (r.power_draw_w) row.max_power_w = std::max(row.max_power_w.value_or(-1e9), *r.power_draw_w);
    }
    if (g.readings.size() > 1 && g.readings.front().violation_power_ns &&
        g.readings.back().violation_power_ns) {
      const double s = double(*g.readings.back().violation_power_ns -
                              *g.readings.front().violation_power_ns) * 1e-9;
      if (s > 0) row.throttled_seconds["power (violation counter)"] = s;
    }
    if (g.readings.size() > 1 && g.readings.front().violation_thermal_ns &&
        g.readings.back().violation_thermal_ns) {
      const double s = double(*g.readings.back().violation_thermal_ns -
                              *g.readings.front().violation_thermal_ns) * 1e-9;
      if (s > 0) row.throttled_seconds["thermal (violation counter)"] = s;
    }
    row.verdict_now = Severity::kOk;
    for (const KernelEvent& e : input.kernel->events) {
      if (e.pci_bus_id == g.key && e.code) row.xid_counts[*e.code] += 1;
    }
  }
  // A GPU whose series stopped while the rest of its node went on: how a
  // GPU that fell off the bus shows in dcgm-exporter's data.
  std::map<std::string, double> last_s;
  double node_last_s = 0;
  for (const GpuSeries& g : input.gpus) {
    auto fresh = dcgm_fresh_.find({node, g.latest().uuid.empty() ? g.key : g.latest().uuid});
    last_s[g.key] = fresh != dcgm_fresh_.end() ? fresh->second : UnixSecondsOf(*g.times.back());
    node_last_s = std::max(node_last_s, last_s[g.key]);
  }
  n.last_sample_age_s = std::max(0.0, UnixSecondsOf(request_.to) - node_last_s);
  const double stale_s = static_cast<double>(request_.stale_after.count());
  for (const auto& [bus, t] : last_s) {
    if (node_last_s - t <= std::max(stale_s, static_cast<double>(bucket_.count()))) continue;
    FleetGpuRow& row = rows_[{node, bus}];
    row.lost_now = row.lost_in_window = true;
    AddFinding(row, "gpu.series_stopped", Severity::kCritical,
               Text{"GPU stopped reporting while the rest of its node went on (lost or hung?)",
                    "该 GPU 停止上报而同节点其他 GPU 仍在上报（掉卡或挂起？）"},
               true);
    row.verdict_now = Severity::kCritical;
    row.worst = Severity::kCritical;
  }
  for (const auto* d : {&window, &now}) {
    for (const Finding& f : d->findings) {
      bool on_gpu = false;
      for (const std::string& bus : f.gpus) {
        auto it = rows_.find({node, bus});
        if (it == rows_.end()) continue;
        on_gpu = true;
        FleetGpuRow& row = it->second;
        AddFinding(row, f.id, f.severity, f.title, d == &now);
        row.worst = std::max(row.worst, f.severity);
        if (d == &now) row.verdict_now = std::max(row.verdict_now.value_or(Severity::kOk), f.severity);
      }
      if (!on_gpu && d == &window) {
        n.worst = std::max(n.worst, f.severity);
        host_findings_[node].push_back(FleetFinding{f.id, f.severity, f.title, false});
      }
    }
  }
  // The strip: the rules again over each stretch, for a node with anything
  // to show (a node clean over the whole window is clean in each stretch).
  for (std::size_t b = 0; b < n.strip.size(); ++b) {
    const WallTime b_from = grid_start_ + bucket_ * static_cast<long>(b);
    const WallTime b_to = b_from + bucket_;
    auto in_stretch = [&](const GpuSeries& g, std::size_t i) {
      return *g.times[i] > b_from && *g.times[i] <= b_to;
    };
    if (window.verdict == Severity::kOk) {
      for (const GpuSeries& g : input.gpus) {
        for (std::size_t i = 0; i < g.times.size(); ++i) {
          if (g.times[i] && in_stretch(g, i)) n.strip[b] = Severity::kOk;
        }
      }
      continue;
    }
    DiagnosisInput part = readings_where(in_stretch);
    if (part.gpus.empty()) continue;
    std::erase_if(part.kernel->events, [&](const KernelEvent& e) {
      return !e.time || *e.time <= b_from || *e.time > b_to;
    });
    part.window_from = b_from;
    part.window_to = b_to;
    n.strip[b] = Diagnose(part).verdict;
  }
}

}  // namespace

namespace {

bool WorseFinding(const FleetFinding& a, const FleetFinding& b) {
  return a.severity != b.severity ? a.severity > b.severity : a.id < b.id;
}

std::string AgeText(double s) {
  if (s >= 3600) return std::to_string(static_cast<long>(s / 3600)) + " h";
  if (s >= 60) return std::to_string(static_cast<long>(s / 60)) + " min";
  return std::to_string(static_cast<long>(s)) + " s";
}

}  // namespace

FleetView FleetAssembly::Finish(FleetView view) {
  const double stale_s = static_cast<double>(request_.stale_after.count());
  for (auto& [key, row] : rows_) {
    std::sort(row.findings.begin(), row.findings.end(), WorseFinding);
    if (row.verdict_now) row.worst = std::max(row.worst, *row.verdict_now);
    FleetNodeRow& n = Node(row.node, row.source);
    n.worst = std::max(n.worst, row.worst);
  }
  for (auto& [name, n] : nodes_) {
    auto& host = host_findings_[name];
    for (const FleetFinding& f : host) {
      bool merged = false;
      for (auto& g : n.findings) {
        if (g.id != f.id) continue;
        g.severity = std::max(g.severity, f.severity);
        g.active_now = g.active_now || f.active_now;
        merged = true;
      }
      if (!merged) n.findings.push_back(f);
    }
    n.stale = !n.last_sample_age_s || *n.last_sample_age_s > stale_s;
    if (n.stale) {
      const std::string age = n.last_sample_age_s ? AgeText(*n.last_sample_age_s) : "the whole window";
      n.findings.push_back(FleetFinding{
          "fleet.node_stale", Severity::kWarning,
          Text{"No sample for " + age + ": the node or its exporter stopped reporting",
               age == "the whole window" ? "整个时间窗内没有样本：节点或其导出器已停止上报"
                                         : age + " 没有样本：节点或其导出器已停止上报"},
          true});
      n.worst = std::max(n.worst, Severity::kWarning);
      ++view.stale;
    }
    std::sort(n.findings.begin(), n.findings.end(), WorseFinding);
    view.nodes.push_back(std::move(n));
  }
  for (auto& [key, row] : rows_) {
    const Severity now = row.verdict_now.value_or(row.worst);
    if (now == Severity::kCritical) ++view.critical;
    if (now == Severity::kWarning) ++view.warning;
    view.gpus.push_back(std::move(row));
  }
  std::stable_sort(view.nodes.begin(), view.nodes.end(), [](const FleetNodeRow& a, const FleetNodeRow& b) {
    return a.worst != b.worst ? a.worst > b.worst : a.node < b.node;
  });
  std::stable_sort(view.gpus.begin(), view.gpus.end(), [](const FleetGpuRow& a, const FleetGpuRow& b) {
    const Severity an = a.verdict_now.value_or(a.worst), bn = b.verdict_now.value_or(b.worst);
    if (an != bn) return an > bn;
    if (a.worst != b.worst) return a.worst > b.worst;
    return a.node != b.node ? a.node < b.node : a.pci_bus_id < b.pci_bus_id;
  });
  return view;
}

namespace {

// Which series are one machine's (see prom/node_identity.h): the agent's
// answers, then dcgm-exporter's with the time of each series' newest point.
NodeIdentities IdentitiesOf(const std::vector<Result<PromAnswer>>& answers) {
  NodeIdentities ids;
  for (std::size_t id = 0; id < answers.size(); ++id) {
    for (const auto& s : answers[id]->series) {
      double last_s = s.points.empty() ? 0 : s.points.back().time_s;
      if (id == kDcgmLastSeen && !s.points.empty()) last_s = s.points.front().value;
      ids.Add(s.labels, id <= kStrip, last_s);
    }
  }
  ids.Resolve();
  return ids;
}

}  // namespace

const char* FleetSourceName(FleetSource source) {
  return source == FleetSource::kGpudoctor ? "gpudoctor" : "dcgm-exporter";
}

Result<FleetView> BuildFleetView(const PromClient& client, const FleetRequest& request) {
  auto matchers = MatchersOf(request.match);
  if (!matchers) return matchers.error();
  if (request.from >= request.to) {
    return Error{ErrorCode::kInvalid, "the window is empty: --from is not before --to"};
  }
  FleetRequest r = request;
  r.strip_buckets = std::clamp(r.strip_buckets, 1, 1000);
  const seconds window = std::chrono::duration_cast<seconds>(r.to - r.from);
  seconds bucket{std::max<long>(1, (window.count() + r.strip_buckets - 1) / r.strip_buckets)};
  r.strip_buckets = static_cast<int>((window.count() + bucket.count() - 1) / bucket.count());
  const int sent_before = client.queries_sent();
  const std::vector<FleetQuery> plan = PlanQueries(r, *matchers, bucket);
  std::vector<Result<PromAnswer>> answers = RunAll(client, plan);
  const std::vector<std::string> silent_errors =
      LastSamplesOfSilentGpus(client, r, bucket, *matchers, answers);

  FleetView view;
  view.from = r.from;
  view.to = r.to;
  view.prometheus_url = client.url();
  view.stale_after_s = static_cast<double>(r.stale_after.count());
  std::set<std::string> notes;
  const Error* first_error = nullptr;
  int failed = 0;
  for (auto& a : answers) {
    if (!a) {
      if (first_error == nullptr) first_error = &a.error();
      ++failed;
      notes.insert(a.error().message);
      continue;
    }
    for (const auto& w : a->warnings) notes.insert("prometheus: " + w);
  }
  if (failed == static_cast<int>(answers.size())) return *first_error;
  notes.insert(silent_errors.begin(), silent_errors.end());
  for (auto& a : answers) {
    if (!a) a = PromAnswer{};
  }
  const NodeIdentities ids = IdentitiesOf(answers);
  FleetAssembly assembly(r, bucket, ids);
  assembly.AddAgentAnswers(answers);
  assembly.AddDcgmAnswers(answers);
  view = assembly.Finish(std::move(view));
  std::map<std::string_view, const NodeGroup*> group_named;  // a name shared: the last group
  for (const NodeGroup& g : ids.Groups()) group_named[g.name] = &g;
  for (auto& n : view.nodes) {
    if (auto it = group_named.find(n.node); it != group_named.end()) n.names = it->second->Names();
  }
  bool dcgm = false;
  for (const auto& n : view.nodes) dcgm = dcgm || n.source == FleetSource::kDcgmExporter;
  if (dcgm) {
    notes.insert(
        "dcgm-exporter nodes: the rules ran over its series in " + Secs(bucket) +
        " stretches (peaks kept, clocks at their lowest); DCGM_FI_DEV_XID_ERRORS holds only the "
        "last Xid code, so a repeat of the same code, or two Xids within one scrape, count once");
  }
  view.notes.assign(notes.begin(), notes.end());
  view.queries = client.queries_sent() - sent_before;
  return view;
}

}  // namespace gpudoctor
