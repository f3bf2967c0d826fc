#include "diagnosis/diagnose_window.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "core/gpu_key.h"
#include "rules/engine/cause_fold.h"
#include "rules/engine/finding_fold.h"
#include "window/cut.h"

namespace gpudoctor {
namespace {

struct TimeSpan {
  std::optional<WallTime> first;
  std::optional<WallTime> last;
};

TimeSpan SpanOf(const GpuSeries& g) {
  TimeSpan span;
  for (const auto& t : g.times) {
    if (!t) continue;
    if (!span.first || *t < *span.first) span.first = t;
    if (!span.last || *t > *span.last) span.last = t;
  }
  return span;
}

// Whether two series' readings may be one GPU's: every reading of one
// before every reading of the other (all timed).
bool Apart(const GpuSeries& a, const GpuSeries& b) {
  const TimeSpan x = SpanOf(a), y = SpanOf(b);
  if (!x.first || !y.first) return false;
  if (std::any_of(a.times.begin(), a.times.end(), [](const auto& t) { return !t; })) return false;
  if (std::any_of(b.times.begin(), b.times.end(), [](const auto& t) { return !t; })) return false;
  return *x.last < *y.first || *y.last < *x.first;
}

// Moves `from`'s readings into `into`, in time order; `into` keeps its key.
void Join(GpuSeries& into, GpuSeries& from) {
  std::vector<std::size_t> order(into.readings.size() + from.readings.size());
  std::iota(order.begin(), order.end(), 0);
  auto time_at = [&](std::size_t i) {
    return i < into.times.size() ? *into.times[i] : *from.times[i - into.times.size()];
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return time_at(a) < time_at(b); });
  GpuSeries joined;
  joined.key = into.key;
  for (std::size_t i : order) {
    GpuSeries& src = i < into.readings.size() ? into : from;
    const std::size_t k = i < into.readings.size() ? i : i - into.readings.size();
    joined.readings.push_back(std::move(src.readings[k]));
    joined.times.push_back(src.times[k]);
  }
  into = std::move(joined);
  from.readings.clear();
  from.times.clear();
}

bool HasIndex(const GpuSeries& g, unsigned index) {
  return std::any_of(g.readings.begin(), g.readings.end(),
                     [&](const GpuStatus& r) { return r.index == index; });
}

}  // namespace

void MergeGpuIdentities(DiagnosisInput& facts) {
  std::vector<GpuSeries>& gpus = facts.gpus;
  std::vector<std::pair<std::string, std::string>> renamed;  // old key -> new key
  for (GpuSeries& s : gpus) {
    if (s.readings.empty()) continue;
    GpuSeries* into = nullptr;
    if (auto index = IndexOfKey(s.key)) {
      // The one named series that was this index in the window.
      int candidates = 0;
      for (GpuSeries& t : gpus) {
        if (&t == &s || t.readings.empty() || IsIndexKey(t.key) || !HasIndex(t, *index)) continue;
        ++candidates;
        into = &t;
      }
      if (candidates != 1) into = nullptr;
    }
    if (!into && !s.latest().uuid.empty()) {
      for (GpuSeries& t : gpus) {
        if (&t != &s && !t.readings.empty() && t.latest().uuid == s.latest().uuid) {
          into = &t;
          break;
        }
      }
    }
    if (!into || !Apart(s, *into)) continue;
    // An "index:N" series always joins the named one; of two named series,
    // the one read last keeps its key.
    if (!IsIndexKey(s.key) && *SpanOf(s).last > *SpanOf(*into).last) {
      renamed.emplace_back(into->key, s.key);
      Join(s, *into);
    } else {
      renamed.emplace_back(s.key, into->key);
      Join(*into, s);
    }
  }
  if (renamed.empty()) return;
  std::erase_if(gpus, [](const GpuSeries& g) { return g.readings.empty(); });
  std::stable_sort(gpus.begin(), gpus.end(), [](const GpuSeries& a, const GpuSeries& b) {
    return a.latest().index < b.latest().index;
  });
  if (!facts.kernel) return;
  for (KernelEvent& e : facts.kernel->events) {
    for (const auto& [from, to] : renamed) {
      if (e.pci_bus_id == from) e.pci_bus_id = to;
    }
  }
}

Status ViewGpus(DiagnosisInput& facts, const DiagnosisRequest& request) {
  if (request.gpus.empty()) return OkStatus();
  std::vector<GpuSeries> kept;
  for (const std::string& selector : request.gpus) {
    auto named = [&](const GpuSeries& g) {
      if (GpuSelectorNames(selector, g.latest())) return true;
      return !IsIndexKey(g.key) && GpuSelectorNames(selector, g.latest().index, g.key, "");
    };
    auto it = std::find_if(facts.gpus.begin(), facts.gpus.end(), named);
    if (it != facts.gpus.end()) {
      kept.push_back(std::move(*it));
      facts.gpus.erase(it);
      continue;
    }
    if (std::any_of(kept.begin(), kept.end(), named)) continue;  // named twice
    return Error{ErrorCode::kInvalid,
                 request.gpu_option + " " + selector + ": no such GPU " + request.where};
  }
  facts.gpus = std::move(kept);
  facts.gpu_readings = !facts.gpus.empty();
  std::set<std::string> keys;
  for (const GpuSeries& g : facts.gpus) keys.insert(g.key);
  std::erase_if(facts.latched, [&](const LatchedFinding& l) { return !keys.contains(l.gpu); });
  if (facts.kernel) {
    std::erase_if(facts.kernel->events, [&](const KernelEvent& e) {
      if (e.pci_bus_id.empty()) return false;  // the host's
      const std::string bus = NormalizePciBusId(e.pci_bus_id);
      return !keys.count(bus.empty() ? e.pci_bus_id : bus);
    });
  }
  return OkStatus();
}

Result<Diagnosis> DiagnoseWindow(DiagnosisInput& facts, const DiagnosisRequest& request) {
  if (request.window) CutToWindow(facts, *request.window);
  MergeGpuIdentities(facts);
  if (auto viewed = ViewGpus(facts, request); !viewed) return viewed.error();
  Diagnosis d = request.rules ? Diagnose(facts, *request.rules) : Diagnose(facts);
  if (request.fold_across_gpus) {
    FoldCauses(d);
    FoldAcrossGpus(d, facts);
  }
  return d;
}

}  // namespace gpudoctor
