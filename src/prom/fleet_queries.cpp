#include "prom/fleet_queries.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <future>
#include <map>
#include <optional>
#include <set>

#include "core/metric_fields.h"
#include "prom/prom_labels.h"

namespace gpudoctor {

using std::chrono::seconds;

std::string FleetSeconds(seconds s) { return std::to_string(std::max<long>(1, s.count())) + "s"; }

namespace {
namespace fleet_queries_local {

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

// Queries in flight at once. Each engine evaluates a query on one core, so
// some run side by side; but VictoriaMetrics answers 503 to requests beyond
// -search.maxConcurrentRequests once they have waited
// -search.maxQueueDuration (defaults: twice its cores, 10 s), which on a
// 2-core server is 4: more at once loses answers under load.
constexpr std::size_t kQueriesInFlight = 4;

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

}  // namespace fleet_queries_local
}  // namespace

using namespace fleet_queries_local;

std::vector<FleetQuery> PlanQueries(const FleetRequest& r, const std::string& m, seconds bucket) {
  const WallTime first_end = GridStart(r, bucket) + bucket;  // the oldest stretch's end
  const seconds window = std::chrono::duration_cast<seconds>(r.to - r.from);
  const std::string w = "[" + FleetSeconds(window) + "]";
  const std::string counters = "gpudoctor_xid_events_total|gpudoctor_gpu_throttle_seconds_total";
  const std::string lost = "state=~\"lost|hung\"";
  std::vector<FleetQuery> q(kQueryCount);
  auto instant = [&](FleetQueryId id, std::string expr, WallTime at) {
    q[id].expr = std::move(expr);
    q[id].at = at;
  };
  auto range = [&](FleetQueryId id, std::string expr, WallTime from, seconds step) {
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
  const std::string lookback = "[" + FleetSeconds(window * 2) + "]";
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
            FleetSeconds(bucket) + "]))",
        first_end, bucket);
  std::vector<std::string> reads = DcgmExtremesExprs(m, FleetSeconds(bucket));
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

std::string SeriesIdentity(const PromSeries& s) {
  std::string id;
  for (const auto& [k, v] : s.labels) {
    if (k == "__name__" || k == "gpudoctor_field") continue;
    id += k + "=" + v + ";";
  }
  return id;
}

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
    q.expr = "timestamp(" + temp + ") or max_over_time(timestamp(" + temp + ")[" + FleetSeconds(span) +
             ":" + FleetSeconds(sub) + "])";
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

}  // namespace gpudoctor
