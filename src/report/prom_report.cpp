#include "report/prom_report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "core/clock_reasons.h"
#include "core/metric_fields.h"
#include "core/time_format.h"
#include "window/window.h"
#include "prom/node_identity.h"
#include "prom/prom_labels.h"
#include "prom/series_readings.h"
#include "diagnosis/diagnose_window.h"
#include "rules/engine/engine.h"
#include "window/cut.h"

namespace gpudoctor {
namespace {

using std::chrono::seconds;

constexpr const char* kPresenceNames = "gpudoctor_gpu_verdict|DCGM_FI_DEV_GPU_TEMP";
constexpr double kMaxPointsPerSeries = 4000;

double UnixOf(WallTime t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }
WallTime WallOf(double s) {
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::duration<double>(s)));
}
std::string SecsOf(double s) { return std::to_string(std::max<long>(1, std::lround(s))) + "s"; }

// "(A or B ...)": the selector `select` makes for each of the node's
// names (instance, Hostname, ...), joined so that a series carrying several
// of them comes once.
std::string OfNode(const NodeGroup& node, const std::string& matchers,
                   const std::function<std::string(const std::string&)>& select) {
  std::string out;
  for (const std::string& m : node.Matchers()) {
    if (!out.empty()) out += " or ";
    out += select(matchers.empty() ? m : m + "," + matchers);
  }
  return "(" + out + ")";
}

std::string NodeList(const std::vector<const NodeGroup*>& nodes) {
  std::string out;
  for (const NodeGroup* g : nodes) {
    std::string names;
    for (const auto& n : g->Names()) names += (names.empty() ? "" : ", ") + n;
    out += (out.empty() ? "" : "; ") + names;
  }
  return out;
}

std::string FieldNamesRegex() {
  std::set<std::string> names;
  for (const MetricField& f : MetricFields()) {
    for (std::string_view n : {f.names.gpudoctor.name, f.names.dcgm.name, f.names.dcgm_alias}) {
      if (!n.empty()) names.insert(std::string(n));
    }
  }
  std::string re;
  for (const auto& n : names) re += (re.empty() ? "" : "|") + n;
  return re;
}

// Runs of consecutive points (a gap of more than 1.5 steps ends one) of
// gpudoctor_finding_active: the agent's own start and end of each finding.
// A finding whose severity changed is two series (the label differs): one
// interval, at its worst severity, as the store keeps it.
void AgentTimeline(const std::vector<PromSeries>& active, double step_s, double window_end_s,
                   Timeline& timeline) {
  struct Points {
    std::vector<std::string> gpus;
    std::map<double, Severity> at;  // point time -> worst severity then
    // The strictest recovery action the `action` labels named.
    std::optional<RecoveryAction> recommended;
  };
  std::map<std::pair<std::string, std::string>, Points> findings;
  for (const PromSeries& s : active) {
    Points& p = findings[{s.Label("id"), s.Label("gpus")}];
    if (p.gpus.empty()) {
      const std::string& list = s.Label("gpus");
      for (std::size_t at = 0; at < list.size();) {
        std::size_t comma = list.find(',', at);
        if (comma == std::string::npos) comma = list.size();
        if (comma > at) p.gpus.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    }
    const Severity severity = ParseSeverity(s.Label("severity")).value_or(Severity::kWarning);
    if (auto action = ParseRecoveryAction(s.Label("action"))) {
      p.recommended = Stricter(p.recommended, *action);
    }
    for (const PromPoint& point : s.points) {
      if (point.value <= 0) continue;
      auto [it, fresh] = p.at.try_emplace(point.time_s, severity);
      if (!fresh) it->second = std::max(it->second, severity);
    }
  }
  for (const auto& [key, p] : findings) {
    std::optional<FindingInterval> open;
    double last = 0;
    auto close = [&](bool open_at_end) {
      if (!open) return;
      if (!open_at_end) open->end = WallOf(last + step_s);
      timeline.findings.push_back(std::move(*open));
      open.reset();
    };
    for (const auto& [t, severity] : p.at) {
      if (open && t - last > step_s * 1.5) close(false);
      if (!open) {
        open = FindingInterval{};
        open->finding_id = key.first;
        open->gpus = p.gpus;
        open->title = Text{key.first, key.first};
        open->start = WallOf(t);
        open->severity = severity;
        open->recommended = p.recommended;
      }
      open->severity = std::max(open->severity, severity);
      last = t;
    }
    close(window_end_s - last <= step_s * 1.5);
  }
}

// Without the agent: the rules over each of `stretches` parts of the
// window; a finding's interval is a run of parts it was found in.
void RulesTimeline(const DiagnosisInput& input, int stretches, Timeline& timeline) {
  const WallTime from = *input.window_from;
  const auto part = (*input.window_to - from) / stretches;
  const WindowCutter cutter(input);
  DiagnosisRequest request;
  request.fold_across_gpus = false;
  std::map<std::pair<std::string, std::string>, FindingInterval> open;
  for (int b = 0; b <= stretches; ++b) {
    std::set<std::pair<std::string, std::string>> seen;
    if (b < stretches) {
      const WallTime b_from = from + part * b, b_to = b_from + part;
      DiagnosisInput slice = cutter.Cut(Window{b_from, b_to});
      slice.gpu_readings = !slice.gpus.empty();
      auto diagnosed = slice.gpu_readings || (slice.kernel && !slice.kernel->events.empty())
                           ? DiagnoseWindow(slice, request)
                           : Result<Diagnosis>(Diagnosis{});
      if (diagnosed) {
        for (const Finding& f : diagnosed->findings) {
          std::string gpus;
          for (const auto& g : f.gpus) gpus += g + ",";
          auto key = std::make_pair(f.id, gpus);
          seen.insert(key);
          auto [it, fresh] = open.try_emplace(key);
          if (fresh) {
            it->second.finding_id = f.id;
            it->second.gpus = f.gpus;
            it->second.start = b_from;
          }
          it->second.severity = std::max(it->second.severity, f.severity);
          if (f.recommended)
            it->second.recommended = Stricter(it->second.recommended, *f.recommended);
          it->second.title = f.title;
        }
      }
    }
    for (auto it = open.begin(); it != open.end();) {
      if (seen.count(it->first)) {
        ++it;
        continue;
      }
      if (b < stretches) it->second.end = from + part * b;
      timeline.findings.push_back(std::move(it->second));
      it = open.erase(it);
    }
  }
}

void ThrottleFromReadings(const DiagnosisInput& input, double step_s, Timeline& timeline) {
  for (const GpuSeries& g : input.gpus) {
    ThrottleTime t;
    t.pci_bus_id = g.key;
    for (const GpuStatus& r : g.readings) {
      t.sampled_seconds += step_s;
      if (!r.clock_event_reasons_mask) continue;
      for (const auto& name : ClockReasonNames(*r.clock_event_reasons_mask)) {
        t.seconds_by_reason[name] += step_s;
      }
    }
    timeline.throttled.push_back(std::move(t));
  }
}

}  // namespace

Result<std::unique_ptr<RecordedReport>> BuildPrometheusReport(const PromClient& client,
                                                              const PromReportRequest& request,
                                                              WallTime now) {
  auto window = ResolveTimeWindow({request.since, request.from, request.to, "1h", "--"}, now);
  if (!window) return window.error();
  auto matchers = MatchersOf(request.match);
  if (!matchers) return matchers.error();
  auto r = std::make_unique<RecordedReport>();
  r->from = window->from;
  r->to = window->to;
  const double window_s = UnixOf(r->to) - UnixOf(r->from);
  const std::string w = "[" + SecsOf(window_s) + "]";

  // Which machines have series in the window (tied as fleet ties them,
  // prom/node_identity.h), which one --node names, and how often it was
  // scraped.
  auto counts = client.Query(
      "label_replace(count_over_time(" + Selector("gpudoctor_gpu_verdict", *matchers) + w +
          "), \"gpudoctor_agent\", \"1\", \"\", \"\") or count_over_time(" +
          Selector("DCGM_FI_DEV_GPU_TEMP", *matchers) + w + ")",
      r->to);
  if (!counts) return counts.error();
  NodeIdentities ids;
  for (const auto& s : counts->series) ids.Add(s.labels, !s.Label("gpudoctor_agent").empty());
  ids.Resolve();
  const std::vector<const NodeGroup*> matching = ids.Matching(request.node);
  if (matching.empty()) {
    return Error{ErrorCode::kNotFound,
                 "--node " + request.node + ": no series of it in " + client.url() + " between " +
                     FormatRfc3339(r->from) + " and " + FormatRfc3339(r->to) +
                     " (matched against the instance, Hostname, hostname, node and nodename labels)"};
  }
  if (matching.size() > 1) {
    return Error{ErrorCode::kInvalid, "--node " + request.node + " matches " +
                                          std::to_string(matching.size()) +
                                          " nodes: " + NodeList(matching) + "; name one of them"};
  }
  const NodeGroup& node = *matching.front();
  double samples = 0;
  for (const auto& s : counts->series) {
    if (ids.NodeOf(s.labels) == node.name) samples = std::max(samples, s.points.front().value);
  }
  const std::string& mm = *matchers;
  auto presence = [](const std::string& m) { return SelectorOfNames(kPresenceNames, m); };
  const std::string sub = w.substr(0, w.size() - 1) + ":1s]";
  auto span = client.Query("max_over_time(timestamp(" + OfNode(node, mm, presence) + ")" + sub +
                               ") - min_over_time(timestamp(" + OfNode(node, mm, presence) + ")" +
                               sub + ")",
                           r->to);
  double interval_s = 60;
  if (span && !span->series.empty() && samples > 1) {
    interval_s = std::max(1.0, span->series.front().points.front().value / (samples - 1));
  }
  const double step_s = std::max(interval_s, window_s / kMaxPointsPerSeries);
  const seconds step{std::max<long>(1, std::lround(step_s))};
  // One step before the window (the counters' baseline), the last point at
  // the window's end.
  const WallTime range_from = FirstPointAtOrBefore(r->from - step, r->to, step);
  auto named = [](const std::string& name) {
    return [name](const std::string& m) { return Selector(name, m); };
  };
  const std::string fields_regex = FieldNamesRegex();
  std::string names;
  for (const auto& one : node.Matchers()) names += (names.empty() ? "" : " or ") + one;

  struct Range {
    std::string expr;
    Result<PromAnswer> answer = Error{};
  };
  // The agent's own Xid counter where it runs (its dcgm names repeat it).
  std::vector<Range> ranges = {
      {OfNode(node, mm, [&](const std::string& m) { return SelectorOfNames(fields_regex, m); })},
      {OfNode(node, mm, named("gpudoctor_gpu_clock_event_reason_active"))},
      {OfNode(node, mm, named("gpudoctor_gpu_state"))},
      {OfNode(node, mm, named("gpudoctor_xid_events_total"))},
      {OfNode(node, mm, named("gpudoctor_finding_active"))},
      {node.agent ? "" : OfNode(node, mm, named("DCGM_FI_DEV_XID_ERRORS")) + " != 0"},
      {node.agent ? "" : OfNode(node, mm, named("DCGM_EXP_XID_ERRORS_COUNT")) + " > 0"},
      {node.agent ? "" : OfNode(node, mm, named("DCGM_EXP_GPU_HEALTH_STATUS")) + " > 0"}};
  for (auto& q : ranges) {
    if (q.expr.empty()) {
      q.answer = PromAnswer{};
      continue;
    }
    q.answer = client.QueryRange(q.expr, range_from, r->to, step);
    if (!q.answer) return q.answer.error();
  }
  // The engine's warnings and partial answers: parts of the window that may
  // be missing, shown as such in the report.
  std::set<std::string> warnings;
  for (const Result<PromAnswer>* a : {&counts, &span}) {
    if (*a) warnings.insert((**a).warnings.begin(), (**a).warnings.end());
  }
  for (const auto& q : ranges) warnings.insert(q.answer->warnings.begin(), q.answer->warnings.end());
  for (const auto& warning : warnings) {
    r->stored.damaged.push_back(StoredWindow::DamagedPart{"", "", 0, "prometheus: " + warning});
  }
  // Every series of the machine is the node's, whichever name matched.
  SeriesReadings readings([&node](const PromLabels&) { return node.name; });
  const double from_s = UnixOf(r->from);
  for (const auto& s : ranges[0].answer->series) {
    PromSeries in_window = s;
    std::erase_if(in_window.points, [&](const PromPoint& p) { return p.time_s < from_s; });
    readings.AddFieldSeries(in_window, s.Label("__name__"));
  }
  for (const auto& s : ranges[1].answer->series) readings.AddClockReasonSeries(s);
  for (const auto& s : ranges[2].answer->series) readings.AddGpuStateSeries(s);
  for (const auto& s : ranges[3].answer->series) {
    readings.AddXidCounterSeries(s, UnixOf(range_from), step_s);
  }
  for (const auto& s : ranges[5].answer->series) readings.AddDcgmXidSeries(s, step_s, from_s);
  for (const auto& s : ranges[6].answer->series) readings.AddDcgmXidCountSeries(s, step_s, from_s);
  for (const auto& s : ranges[7].answer->series) {
    PromSeries in_window = s;
    std::erase_if(in_window.points, [&](const PromPoint& p) { return p.time_s < from_s; });
    readings.AddDcgmHealthSeries(in_window);
  }
  const std::vector<std::string> nodes = readings.Nodes();
  if (nodes.empty()) {
    return Error{ErrorCode::kNotFound, "--node " + request.node + ": no GPU series of it between " +
                                           FormatRfc3339(r->from) + " and " + FormatRfc3339(r->to)};
  }
  DiagnosisInput& input = r->input;
  input = readings.InputFor(nodes.front(), request.config, r->from, r->to);
  if (input.kernel) {
    input.kernel->sources = {SourceStatus{"prometheus " + client.url() + " " + names, true, ""}};
  }
  input.nvml_loaded = input.gpu_readings = !input.gpus.empty();
  input.hostname = request.node;
  // The window cut (the points of a state or reason series made readings
  // before it) and the --gpu view; the findings folded across GPUs once the
  // active stretches are judged (FinishRecordedDiagnosis).
  DiagnosisRequest view;
  view.window = Window{r->from, r->to};
  view.gpus = request.gpus;
  view.where = "of " + request.node + " in Prometheus in this window";
  view.fold_across_gpus = false;
  auto diagnosed = DiagnoseWindow(input, view);
  if (!diagnosed) return diagnosed.error();
  r->diagnosis = std::move(*diagnosed);
  input.nvml_loaded = input.gpu_readings = !input.gpus.empty();
  // Timeline: the agent's own start and end of each finding, else the rules'.
  std::set<std::string> kept_gpus;
  for (const auto& g : input.gpus) kept_gpus.insert(g.key);
  Timeline& timeline = r->stored.timeline;
  if (!ranges[4].answer->series.empty()) {
    AgentTimeline(ranges[4].answer->series, step_s, UnixOf(r->to), timeline);
    // The diagnosis' title where it found the same on the same GPUs.
    for (auto& f : timeline.findings) {
      for (const auto& d : r->diagnosis.findings) {
        if (d.id != f.finding_id) continue;
        if (d.gpus == f.gpus) f.title = d.title;
      }
    }
  } else {
    RulesTimeline(input, 24, timeline);
  }
  if (!request.gpus.empty()) {
    std::erase_if(timeline.findings, [&](const FindingInterval& f) {
      return !f.gpus.empty() && std::none_of(f.gpus.begin(), f.gpus.end(),
                                             [&](const std::string& g) { return kept_gpus.count(g); });
    });
  }
  std::sort(timeline.findings.begin(), timeline.findings.end(),
            [](const FindingInterval& a, const FindingInterval& b) { return a.start < b.start; });
  ThrottleFromReadings(input, step_s, timeline);
  FinishRecordedDiagnosis(*r);
  if (input.kernel) r->stored.events = input.kernel->events;
  r->store_path = client.url();
  r->source_kind = "prometheus";
  return r;
}

}  // namespace gpudoctor
