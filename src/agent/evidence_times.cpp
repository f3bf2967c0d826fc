#include "agent/evidence_times.h"

#include <algorithm>

#include "diagnosis/diagnose_window.h"
#include "rules/engine/registry.h"
#include "window/cut.h"

namespace gpudoctor {
namespace evidence_times_detail {

// The most times a finding's evidence is looked for at (see StampEvidenceTimes).
constexpr std::size_t kMaxEvidenceCuts = 64;

// The times of the input's readings and events, ascending, each once.
std::vector<WallTime> TimesOf(const DiagnosisInput& in) {
  std::vector<WallTime> times;
  for (const GpuSeries& g : in.gpus) {
    for (const auto& t : g.times) {
      if (t) times.push_back(*t);
    }
  }
  if (in.kernel) {
    for (const KernelEvent& e : in.kernel->events) {
      if (e.time) times.push_back(*e.time);
    }
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

bool Shows(const Diagnosis& d, const Finding& f) {
  for (const Finding& g : d.findings) {
    if (g.id != f.id) continue;
    if (f.gpus.empty() && g.gpus.empty()) return true;
    for (const std::string& bus : f.gpus) {
      if (std::find(g.gpus.begin(), g.gpus.end(), bus) != g.gpus.end()) return true;
    }
  }
  return false;
}

}  // namespace evidence_times_detail

void StampEvidenceTimes(const DiagnosisInput& window, std::optional<WallTime> since,
                        std::vector<Finding>& findings,
                        const std::function<bool(const Finding&)>& wants_first,
                        const std::vector<const Rule*>* rules) {
  using namespace evidence_times_detail;
  if (findings.empty()) return;
  const std::vector<const Rule*>& all = rules ? *rules : AllRules();
  std::vector<WallTime> cuts = TimesOf(window);
  if (since) {
    // Keep the last time at or before `since` and everything after it.
    auto after = std::upper_bound(cuts.begin(), cuts.end(), *since);
    if (after != cuts.begin()) --after;
    cuts.erase(cuts.begin(), after);
  }
  if (cuts.empty()) return;
  // A flood brings hundreds of event times between two evaluations: the
  // rule runs about twice per cut and finding, so the times are thinned to
  // at most kMaxEvidenceCuts, evenly, the first and last kept (the evidence
  // times are then as exact as one cut's spacing).
  if (cuts.size() > kMaxEvidenceCuts) {
    std::vector<WallTime> thinned;
    thinned.reserve(kMaxEvidenceCuts);
    for (std::size_t i = 0; i < kMaxEvidenceCuts; ++i) {
      thinned.push_back(cuts[i * (cuts.size() - 1) / (kMaxEvidenceCuts - 1)]);
    }
    cuts = std::move(thinned);
  }
  // The stretches hold the readings and events taken from one cut to
  // another, both in (Window::Spanning).
  const WindowCutter newest(WindowCutter(window).Cut(Window::Spanning(cuts.front(), cuts.back())));
  const std::size_t n = cuts.size();
  for (Finding& f : findings) {
    auto rule = std::find_if(all.begin(), all.end(), [&](const Rule* r) { return r->id == f.id; });
    if (rule == all.end()) continue;
    const std::vector<const Rule*> one{*rule};
    DiagnosisRequest request;
    request.rules = &one;
    request.fold_across_gpus = false;
    auto shows = [&](std::size_t a, std::size_t b) {
      DiagnosisInput stretch = newest.Cut(Window::Spanning(cuts[a], cuts[b]));
      auto d = DiagnoseWindow(stretch, request);
      return d && Shows(*d, f);
    };
    // The shortest stretch ending now that shows it, then the shortest
    // start of that stretch that still does: its end is the last evidence
    // (a reading for a rule that judges one, the reading after a counter's
    // increase, the last of the readings a share needs).
    for (std::size_t j = n; j-- > 0;) {
      if (!shows(j, n - 1)) continue;
      std::size_t m = j;
      while (m < n - 1 && !shows(j, m)) ++m;
      f.last_evidence = cuts[m];
      break;
    }
    if (!f.last_evidence || !wants_first || !wants_first(f)) continue;
    for (std::size_t m = 0; m < n; ++m) {
      if (!shows(0, m)) continue;
      std::size_t j = m;
      while (j > 0 && !shows(j, m)) --j;
      f.first_evidence = cuts[j];
      break;
    }
  }
}

}  // namespace gpudoctor
