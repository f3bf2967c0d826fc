#include "prom/fleet_assembly.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <memory>
#include <thread>

#include "core/gpu_status.h"
#include "diagnosis/diagnose_window.h"
#include "knowledge/recovery_policy.h"
#include "window/cut.h"

namespace gpudoctor {
namespace {
namespace fleet_assembly_local {

double UnixSecondsOf(WallTime t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// Fleet asks for no --gpu view, so the diagnosis cannot fail.
Diagnosis DiagnoseOrEmpty(DiagnosisInput& input, const DiagnosisRequest& request) {
  auto d = DiagnoseWindow(input, request);
  return d ? std::move(*d) : Diagnosis{};
}

Severity SeverityOfVerdict(double v) {
  if (!std::isfinite(v) || v < 0.5) return Severity::kOk;
  if (v < 1.5) return Severity::kInfo;
  if (v < 2.5) return Severity::kWarning;
  return Severity::kCritical;
}

// Threads that run the rules over dcgm-exporter's nodes, at most.
constexpr std::size_t kDiagnosisThreads = 8;

// The name the agent's findings give the row's GPU (core/gpu_key.h): its
// bus id, or "index:N" for a GPU lost before it gave one; empty when
// neither is known.
std::string KeyOfRow(const FleetGpuRow& row) {
  return GpuLabels{row.pci_bus_id, row.gpu, row.uuid, row.model}.FindingKey();
}

void AddFinding(FleetGpuRow& row, const std::string& id, Severity severity, const Text& title,
                bool now, RecoveryAction action) {
  for (auto& f : row.findings) {
    if (f.id != id) continue;
    f.severity = std::max(f.severity, severity);
    f.active_now = f.active_now || now;
    f.recommended = Stricter(f.recommended, action);
    if (f.title.en.empty()) f.title = title;
    return;
  }
  row.findings.push_back(FleetFinding{id, severity, title, now, action});
}

// The agent's `action` label; the policy's for an agent that had none.
RecoveryAction ActionOfSeries(const PromSeries& s, const std::string& id, Severity severity) {
  if (auto named = ParseRecoveryAction(s.Label("action"))) return *named;
  return RuleRecovery(id, severity);
}

bool WorseFinding(const FleetFinding& a, const FleetFinding& b) {
  return a.severity != b.severity ? a.severity > b.severity : a.id < b.id;
}

std::string AgeText(double s) {
  if (s >= 3600) return std::to_string(static_cast<long>(s / 3600)) + " h";
  if (s >= 60) return std::to_string(static_cast<long>(s / 60)) + " min";
  return std::to_string(static_cast<long>(s)) + " s";
}

}  // namespace fleet_assembly_local
}  // namespace

using namespace fleet_assembly_local;

std::optional<std::size_t> FleetAssembly::BucketOf(double t) const {
  const double from = UnixSecondsOf(grid_start_);
  const long i = std::lround((t - from) / static_cast<double>(bucket_.count())) - 1;
  if (i < 0 || i >= request_.strip_buckets) return std::nullopt;
  return static_cast<std::size_t>(i);
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
  for (FleetQueryId id : {kFindingsWindow, kFindingsNow}) {
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
        AddFinding(row, fid, sev, Text{}, id == kFindingsNow, ActionOfSeries(s, fid, sev));
        any = true;
      }
      if (!any) {  // host-wide, or a GPU without a verdict series: on the node's row
        FleetNodeRow& n = Node(node, FleetSource::kGpudoctor);
        n.worst = std::max(n.worst, sev);
        host_findings_[node].push_back(
            FleetFinding{fid, sev, Text{}, id == kFindingsNow, ActionOfSeries(s, fid, sev)});
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
  // The readings as read (a range read's first point may precede the
  // window): the rows' figures and whether a GPU's series stopped. The
  // rules judge cuts of them, by the one window rule (window/window.h).
  const WindowCutter cutter(readings.InputFor(node, request_.config, request_.from, request_.to));
  const DiagnosisInput& input = cutter.whole();
  if (input.gpus.empty()) return;
  FleetNodeRow& n = Node(node, FleetSource::kDcgmExporter);
  // The rules per GPU (fleet's rows are per GPU), over the window.
  DiagnosisRequest per_gpu;
  per_gpu.fold_across_gpus = false;
  DiagnosisInput in_window = cutter.Cut(Window{request_.from, request_.to});
  const Diagnosis window = DiagnoseOrEmpty(in_window, per_gpu);
  // Now: the last bucket, each GPU's last reading in it alone.
  DiagnosisInput last = cutter.Cut(Window{request_.to - bucket_, request_.to});
  for (GpuSeries& g : last.gpus) {
    g.readings.erase(g.readings.begin(), g.readings.end() - 1);
    g.times.erase(g.times.begin(), g.times.end() - 1);
  }
  const Diagnosis now = DiagnoseOrEmpty(last, per_gpu);
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
               true, RuleRecovery("gpu.lost", Severity::kCritical));  // lost or hung, as gpu.lost
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
        AddFinding(row, f.id, f.severity, f.title, d == &now,
                   f.recommended.value_or(RecoveryAction::kNone));
        row.worst = std::max(row.worst, f.severity);
        if (d == &now) row.verdict_now = std::max(row.verdict_now.value_or(Severity::kOk), f.severity);
      }
      if (!on_gpu && d == &window) {
        n.worst = std::max(n.worst, f.severity);
        host_findings_[node].push_back(FleetFinding{f.id, f.severity, f.title, false,
                                                    f.recommended.value_or(RecoveryAction::kNone)});
      }
    }
  }
  // The strip: the rules again over each stretch, for a node with anything
  // to show (a node clean over the whole window is clean in each stretch).
  for (std::size_t b = 0; b < n.strip.size(); ++b) {
    const WallTime b_from = grid_start_ + bucket_ * static_cast<long>(b);
    const WallTime b_to = b_from + bucket_;
    const Window stretch{b_from, b_to};
    if (window.verdict == Severity::kOk) {
      for (const GpuSeries& g : input.gpus) {
        for (const auto& t : g.times) {
          if (t && stretch.Holds(*t)) n.strip[b] = Severity::kOk;
        }
      }
      continue;
    }
    DiagnosisInput part = cutter.Cut(stretch);
    if (part.gpus.empty()) continue;
    n.strip[b] = DiagnoseOrEmpty(part, per_gpu).verdict;
  }
}

FleetView FleetAssembly::Finish(FleetView view) {
  const double stale_s = static_cast<double>(request_.stale_after.count());
  for (auto& [key, row] : rows_) {
    std::sort(row.findings.begin(), row.findings.end(), WorseFinding);
    if (row.verdict_now) row.worst = std::max(row.worst, *row.verdict_now);
    for (const FleetFinding& f : row.findings) {
      if (f.active_now) row.recommended = Stricter(row.recommended, f.recommended);
    }
    FleetNodeRow& n = Node(row.node, row.source);
    n.worst = std::max(n.worst, row.worst);
    n.recommended = Stricter(n.recommended, row.recommended);
  }
  for (auto& [name, n] : nodes_) {
    auto& host = host_findings_[name];
    for (const FleetFinding& f : host) {
      bool merged = false;
      for (auto& g : n.findings) {
        if (g.id != f.id) continue;
        g.severity = std::max(g.severity, f.severity);
        g.active_now = g.active_now || f.active_now;
        g.recommended = Stricter(g.recommended, f.recommended);
        merged = true;
      }
      if (!merged) n.findings.push_back(f);
      if (f.active_now) n.recommended = Stricter(n.recommended, f.recommended);
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
}  // namespace gpudoctor
