#include "report/recorded_report.h"

#include <sys/utsname.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "collect/net_facts.h"
#include "core/clock_reasons.h"
#include "core/time_format.h"
#include "window/window.h"
#include "report/fabric_history.h"
#include "core/gpu_key.h"
#include "diagnosis/diagnose_window.h"
#include "rules/engine/engine.h"
#include "window/cut.h"
#include "rules/engine/finding_fold.h"
#include "store/store_lock.h"

namespace gpudoctor {
namespace {

Status ResolveWindow(const RecordedWindowRequest& o, WallTime now, RecordedReport& r) {
  auto w = ResolveTimeWindow({o.since, o.from, o.to, "1h", o.option_prefix}, now);
  if (!w) return w.error();
  r.from = w->from;
  r.to = w->to;
  return OkStatus();
}

// Keeps the damaged parts of the GPUs the request names (index, bus id or
// UUID). A named GPU whose every sample in the window is damaged is that
// error, not "no such GPU" (the --gpu view of DiagnoseWindow says that).
Status KeepDamageOfNamedGpus(StoredWindow& w, const RecordedWindowRequest& o, WallTime from,
                                   WallTime to) {
  if (o.gpus.empty()) return OkStatus();
  std::vector<StoredWindow::DamagedPart> kept_damage;
  for (const auto& text : o.gpus) {
    const StoredWindow::DamagedPart* damage = nullptr;
    for (const auto& d : w.damaged) {
      if (!GpuSelectorNames(text, d.index, d.pci_bus_id, d.uuid)) continue;
      if (!damage) damage = &d;
      kept_damage.push_back(d);
    }
    const bool recorded = std::any_of(w.gpus.begin(), w.gpus.end(), [&](const GpuSeries& g) {
      return GpuSelectorNames(text, g.latest());
    });
    if (!recorded && damage) {
      return Error{ErrorCode::kCorrupt, damage->message + "; no samples of it could be read between " +
                                            FormatRfc3339(from) + " and " + FormatRfc3339(to)};
    }
  }
  w.damaged = std::move(kept_damage);
  return OkStatus();
}

// No agent holds the store (it was killed, or the directory was copied
// here): intervals it left open are not active now. They end at its last
// sample, and the timeline says that recording stopped there.
Status EndUnheldIntervals(Store& store, const RecordedWindowRequest& o, WallTime from,
                                WallTime to, StoredWindow& w) {
  const bool open = std::any_of(w.timeline.findings.begin(), w.timeline.findings.end(),
                                [](const FindingInterval& f) { return !f.end; });
  if (!open || StoreDirHeld(o.data_dir)) return OkStatus();
  auto last = store.LastSampleTime();
  if (!last) return last.error();
  const WallTime end = last->value_or(w.last_sample.value_or(to));
  for (auto& f : w.timeline.findings) {
    if (!f.end) f.end = std::max(f.start, end);
  }
  if (end < from || end > to) return OkStatus();
  KernelEvent e;
  e.kind = KernelEventKind::kAgentStopped;
  e.time = end;
  e.source = SourceRef{"agent", 0};
  e.message = "no agent is recording into " + o.data_dir +
              ": it stopped after this sample without closing its records (killed, crashed or "
              "the power was lost); the findings still open then end here";
  auto at = std::upper_bound(w.events.begin(), w.events.end(), end,
                             [](WallTime t, const KernelEvent& k) { return k.time && t < *k.time; });
  w.events.insert(at, std::move(e));
  return OkStatus();
}

// A finding of the stretch's diagnosis into the window's: a finding of the
// same rule on those GPUs is raised to its severity (replaced by it when
// about exactly those GPUs), otherwise it is added.
void MergeStretchFinding(const Finding& f, Diagnosis& d) {
  for (Finding& have : d.findings) {
    if (have.id != f.id) continue;
    const bool covers = std::all_of(f.gpus.begin(), f.gpus.end(), [&](const std::string& g) {
      return std::find(have.gpus.begin(), have.gpus.end(), g) != have.gpus.end();
    });
    if (!covers || (f.gpus.empty() != have.gpus.empty())) continue;
    if (f.severity <= have.severity) return;
    if (have.gpus == f.gpus) {
      have = f;
    } else {
      have.severity = f.severity;
    }
    return;
  }
  d.findings.push_back(f);
}

// The clock-event reasons that make each throttling finding.
std::uint64_t ReasonBitsOf(const std::string& finding_id) {
  if (finding_id == "thermal.slowdown") {
    return ClockReasonBit("sw_thermal_slowdown") | ClockReasonBit("hw_thermal_slowdown");
  }
  if (finding_id == "power.brake") return ClockReasonBit("hw_power_brake_slowdown");
  if (finding_id == "power.cap") return ClockReasonBit("sw_power_cap");
  if (finding_id == "clocks.hw_slowdown") return ClockReasonBit("hw_slowdown");
  return 0;
}


}  // namespace

void EndAtTheLastSample(const DiagnosisInput& input, Timeline& timeline) {
  for (FindingInterval& f : timeline.findings) {
    const std::uint64_t bits = ReasonBitsOf(f.finding_id);
    if (bits == 0 || f.gpus.empty()) continue;
    std::optional<WallTime> first, last;
    for (const std::string& bus : f.gpus) {
      const GpuSeries* g = FindGpu(input, bus);
      if (g == nullptr) continue;
      auto held = [&](std::size_t i) {
        const auto& mask = g->readings[i].clock_event_reasons_mask;
        return mask && (*mask & bits) != 0;
      };
      const std::size_t n = std::min(g->readings.size(), g->times.size());
      // The run that reaches the interval's start.
      std::optional<std::size_t> at;
      for (std::size_t i = 0; i < n && g->times[i] && *g->times[i] <= f.start; ++i) at = i;
      if (at && held(*at)) {
        std::size_t i = *at;
        while (i > 0 && held(i - 1)) --i;
        if (!first || *g->times[i] < *first) first = g->times[i];
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (!g->times[i] || *g->times[i] < f.start || (f.end && *g->times[i] > *f.end)) continue;
        if (held(i) && (!last || *g->times[i] > *last)) last = g->times[i];
      }
    }
    if (first) f.start = *first;
    if (f.end && last && *last >= f.start) f.end = *last;
  }
}

void JudgeActiveStretches(RecordedReport& r) {
  // What the agent checked and the timeline shows is not "not checked",
  // whatever the stored readings lack (the agent saw the host's CPUs live).
  std::erase_if(r.diagnosis.not_checked, [&](const NotChecked& n) {
    return std::any_of(r.stored.timeline.findings.begin(), r.stored.timeline.findings.end(),
                       [&](const FindingInterval& f) { return f.finding_id == n.rule; });
  });
  std::map<WallTime, std::set<std::string>> active;  // stretch start -> finding ids
  for (const FindingInterval& f : r.stored.timeline.findings) {
    if (!f.end && f.start > r.from) active[f.start].insert(f.finding_id);
  }
  bool changed = false;
  const WindowCutter cutter(r.input);
  DiagnosisRequest request;
  request.fold_across_gpus = false;  // folded once, after (FinishRecordedDiagnosis)
  for (const auto& [start, ids] : active) {
    // From the interval's first sample to the window's end, both in.
    DiagnosisInput stretch = cutter.Cut(Window{start - WallTime::duration(1), r.to});
    if (stretch.gpus.empty()) continue;
    auto diagnosed = DiagnoseWindow(stretch, request);
    if (!diagnosed) continue;
    for (const Finding& f : diagnosed->findings) {
      if (!ids.count(f.id)) continue;
      MergeStretchFinding(f, r.diagnosis);
      changed = true;
    }
  }
  if (!changed) return;
  Diagnosis& d = r.diagnosis;
  std::stable_sort(d.findings.begin(), d.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  for (const Finding& f : d.findings) d.verdict = std::max(d.verdict, f.severity);
  RecomputeGpuVerdicts(d);
}

void FinishRecordedDiagnosis(RecordedReport& r) {
  // The stretches first, on the per-GPU findings: a GPU that was worse in
  // one stretch raises its own finding, not a finding folded over the others.
  JudgeActiveStretches(r);
  FoldAcrossGpus(r.diagnosis, r.input);
}

ReportContext RecordedReport::Context(WallTime generated_at, Lang lang) const {
  ReportContext report;
  report.input = &input;
  report.diagnosis = &diagnosis;
  report.generated_at = generated_at;
  report.lang = lang;
  report.command = "report";
  report.timeline = &stored.timeline;
  report.summaries = &stored.summaries;
  for (const auto& part : stored.damaged) {
    report.files.push_back(ReportInputFile{store_path, source_kind, false, part.message, {}});
  }
  return report;
}

Result<std::unique_ptr<RecordedReport>> BuildRecordedReport(const RecordedWindowRequest& request,
                                                            WallTime now) {
  auto r = std::make_unique<RecordedReport>();
  if (auto w = ResolveWindow(request, now, *r); !w) return w.error();
  StoreOptions so;
  so.data_dir = request.data_dir;
  so.read_only = true;
  auto store = Store::Open(so);
  if (!store) {
    Error e = store.error();
    if (e.code == ErrorCode::kNotFound) {
      e.message +=
          " (nothing recorded: is `gpudoctor agent` running? For a check now: "
          "gpudoctor diagnose)";
    }
    return e;
  }
  auto stored = (*store)->ReadWindow(r->from, r->to, {});
  if (!stored) return stored.error();
  r->stored = std::move(*stored);
  r->store_path = request.data_dir + "/" + kStoreFile;
  // A running agent may be half-way through writing a frame: judge the WAL
  // only when nobody writes it.
  if (std::string wal = StoreDirHeld(request.data_dir) ? "" : WalDamageNote(r->store_path);
      !wal.empty()) {
    r->stored.damaged.push_back({"", "", 0, std::move(wal)});
  }
  if (auto ended = EndUnheldIntervals(**store, request, r->from, r->to, r->stored); !ended) {
    return ended.error();
  }
  if (auto f = KeepDamageOfNamedGpus(r->stored, request, r->from, r->to); !f) return f.error();
  const bool nothing = r->stored.gpus.empty() && r->stored.events.empty() &&
                       r->stored.timeline.findings.empty() && r->stored.rdma.empty();
  if (nothing && !r->stored.damaged.empty()) {
    // Everything in the window is damaged: that, not "nothing recorded".
    std::string more = r->stored.damaged.size() > 1
                           ? " (and " + std::to_string(r->stored.damaged.size() - 1) + " more)"
                           : "";
    return Error{ErrorCode::kCorrupt, r->stored.damaged.front().message + more +
                                          "; nothing else was recorded between " +
                                          FormatRfc3339(r->from) + " and " + FormatRfc3339(r->to)};
  }
  if (nothing) {
    return Error{ErrorCode::kNotFound,
                 "nothing recorded in " + request.data_dir + " between " + FormatRfc3339(r->from) +
                     " and " + FormatRfc3339(r->to) +
                     "; is `gpudoctor agent` running? For a check now: gpudoctor diagnose"};
  }
  DiagnosisInput& input = r->input;
  input.config = request.config;
  input.recorded = true;
  input.window_from = r->from;
  input.window_to = r->to;
  input.gpus = std::move(r->stored.gpus);
  input.gpu_readings = !input.gpus.empty();
  input.nvml_loaded = !input.gpus.empty();
  input.kernel = KernelFacts{};
  input.kernel->events = std::move(r->stored.events);
  input.kernel->sources = {SourceStatus{"agent store " + request.data_dir, true, ""}};
  input.latched = std::move(r->stored.latched);
  utsname u{};
  if (uname(&u) == 0) {
    input.hostname = u.nodename;
    input.kernel_release = u.release;
  }
  if (!r->stored.rdma.empty()) {
    // The RDMA rules judge the recorded port readings as the agent's did:
    // the last is the latest reading, the others its history.
    input.network = NetFacts{};
    input.network->rdma = std::move(r->stored.rdma.back());
    r->stored.rdma.pop_back();
    input.rdma_history = std::move(r->stored.rdma);
    r->stored.rdma.clear();
  }
  EndAtTheLastSample(input, r->stored.timeline);
  AddFabricHistory(input, r->stored.timeline);
  DiagnosisRequest view;
  view.window = Window{r->from, r->to};
  view.gpus = request.gpus;
  view.gpu_option = request.option_prefix + "gpu";
  view.where = "recorded in this window";
  view.fold_across_gpus = false;  // after the active stretches
  auto diagnosed = DiagnoseWindow(input, view);
  if (!diagnosed) return diagnosed.error();
  r->diagnosis = std::move(*diagnosed);
  FinishRecordedDiagnosis(*r);
  return r;
}

}  // namespace gpudoctor
