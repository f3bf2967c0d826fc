#include "prom/series_readings.h"

#include <algorithm>
#include <cmath>

#include "core/clock_reasons.h"
#include "core/gpu_key.h"
#include "core/metric_fields.h"
#include "knowledge/dcgm_health_watch.h"

namespace gpudoctor {
namespace {

// Prometheus' times are whole milliseconds: rounded to them, a point at
// the end of a range read is exactly at the window's end (window/window.h).
WallTime TimeOfUnixSeconds(double s) {
  return WallTime(std::chrono::milliseconds(std::llround(s * 1000.0)));
}

unsigned IndexOfGpuLabel(const std::string& gpu) {
  unsigned v = 0;
  for (char c : gpu) {
    if (c < '0' || c > '9' || v > 100000) return 0;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

}  // namespace

std::pair<SeriesReadings::GpuHistory*, std::string> SeriesReadings::GpuOf(
    const PromSeries& series) {
  const GpuLabels labels = GpuOfLabels(series.labels);
  NodeHistory& node = nodes_[node_of_(series.labels)];
  std::string key = labels.Key();
  if (!labels.uuid.empty()) {
    auto [it, fresh] = node.by_uuid.try_emplace(labels.uuid, key);
    key = it->second;  // the key the GPU's first series gave
  }
  GpuHistory& h = node.gpus[key];
  // Each generation of labels adds what it knows.
  for (auto [have, more] : {std::pair{&h.labels.pci_bus_id, &labels.pci_bus_id},
                            std::pair{&h.labels.gpu, &labels.gpu},
                            std::pair{&h.labels.uuid, &labels.uuid},
                            std::pair{&h.labels.model, &labels.model}}) {
    if (have->empty()) *have = *more;
  }
  return {&h, key};
}

void SeriesReadings::AddFieldSeries(const PromSeries& series, const std::string& series_name) {
  const FieldOfSeries f = FindFieldOfSeries(series_name);
  if (f.field == nullptr || series.points.empty()) return;
  // A MIG GPU instance's own memory and GPM figures are not the GPU's; its
  // copies of the GPU's device fields (dcgm-exporter serves every field per
  // GPU instance once MIG is on) are, and meet in the GPU's reading.
  if (IsMigInstanceSeries(series.labels) && IsPerMigInstanceField(*f.field)) return;
  if (GpuOfLabels(series.labels).Key().empty()) return;  // no GPU labels: not a per-GPU series
  GpuHistory& h = *GpuOf(series).first;
  for (const PromPoint& p : series.points) {
    SetFieldValue(h.at[p.time_s], *f.field, p.value * f.field_per_series_unit);
  }
}

void SeriesReadings::AddXidEvent(const PromSeries& series, double time_s, int code,
                                 std::size_t count, std::string message) {
  const std::string key = GpuOf(series).second;
  NodeHistory& node = nodes_[node_of_(series.labels)];
  KernelEvent e;
  e.kind = KernelEventKind::kXid;
  e.time = TimeOfUnixSeconds(time_s);
  e.code = code;
  e.pci_bus_id = key;
  e.count = count;
  e.message = std::move(message);
  // The same Xid seen through another GPU instance's copy of the series.
  const bool seen = std::any_of(node.events.begin(), node.events.end(), [&](const KernelEvent& o) {
    return o.pci_bus_id == e.pci_bus_id && o.code == e.code && o.time == e.time;
  });
  if (!seen) node.events.push_back(std::move(e));
}

void SeriesReadings::AddDcgmXidSeries(const PromSeries& series, double step_s,
                                      double counted_from_s) {
  std::optional<double> previous_code;
  double previous_t = 0;
  for (const PromPoint& p : series.points) {
    if (!std::isfinite(p.value) || p.value <= 0 || p.value > 1e6) {
      previous_code.reset();
      continue;
    }
    const bool gap = previous_code && p.time_s - previous_t > step_s * 1.5;
    const bool changed = !previous_code || *previous_code != p.value || gap;
    previous_code = p.value;
    previous_t = p.time_s;
    if (!changed || p.time_s < counted_from_s) continue;
    const int code = static_cast<int>(std::lround(p.value));
    AddXidEvent(series, p.time_s, code, 1,
                "Xid " + std::to_string(code) +
                    " (dcgm-exporter's DCGM_FI_DEV_XID_ERRORS, the last code the GPU reported)");
  }
}

void SeriesReadings::AddDcgmXidCountSeries(const PromSeries& series, double step_s,
                                           double counted_from_s) {
  const int code = std::atoi(series.Label("xid").c_str());
  if (code <= 0) return;
  double previous = 0, previous_t = 0;
  for (const PromPoint& p : series.points) {
    if (!std::isfinite(p.value) || p.value < 0 || p.value > 1e9) continue;
    if (p.time_s - previous_t > step_s * 1.5) previous = 0;  // a gap: the window emptied
    const double rise = p.value - previous;
    previous = p.value;
    previous_t = p.time_s;
    if (rise < 0.5 || p.time_s < counted_from_s) continue;
    const auto count = static_cast<std::size_t>(std::lround(rise));
    AddXidEvent(series, p.time_s, code, count,
                "Xid " + std::to_string(code) + " (dcgm-exporter's DCGM_EXP_XID_ERRORS_COUNT rose by " +
                    std::to_string(count) + ")");
  }
}

void SeriesReadings::AddDcgmHealthSeries(const PromSeries& series) {
  const int watch = DcgmHealthWatchIndex(series.Label("health_watch"));
  if (watch < 0 || series.points.empty()) return;
  const std::uint32_t bit = 1u << watch;
  GpuHistory& h = *GpuOf(series).first;
  for (const PromPoint& p : series.points) {
    if (!std::isfinite(p.value) || p.value < kDcgmHealthWarn) continue;
    GpuStatus& g = h.at[p.time_s];
    auto& mask = p.value >= kDcgmHealthFail ? g.dcgm_health_fail_watches : g.dcgm_health_warn_watches;
    mask = mask.value_or(0) | bit;
  }
}

void SeriesReadings::AddClockReasonSeries(const PromSeries& series) {
  const std::uint64_t bit = ClockReasonBit(series.Label("reason"));
  if (bit == 0 || series.points.empty()) return;
  GpuHistory& h = *GpuOf(series).first;
  for (const PromPoint& p : series.points) {
    GpuStatus& g = h.at[p.time_s];
    std::uint64_t mask = g.clock_event_reasons_mask.value_or(0);
    g.clock_event_reasons_mask = p.value > 0 ? (mask | bit) : (mask & ~bit);
  }
}

void SeriesReadings::AddGpuStateSeries(const PromSeries& series) {
  const std::string& name = series.Label("state");
  std::optional<GpuState> state;
  for (GpuState s : {GpuState::kLost, GpuState::kHung, GpuState::kError}) {
    if (name == GpuStateName(s)) state = s;
  }
  if (!state || series.points.empty()) return;
  GpuHistory& h = *GpuOf(series).first;
  for (const PromPoint& p : series.points) {
    if (p.value > 0) {
      GpuStatus& g = h.at[p.time_s];
      g.state = *state;
      g.state_detail = std::string("the agent reported the GPU ") + GpuStateName(*state);
    }
  }
}

void SeriesReadings::AddXidCounterSeries(const PromSeries& series, double range_start_s,
                                         double step_s) {
  const int code = std::atoi(series.Label("xid").c_str());
  if (code <= 0 || series.points.empty()) return;
  // A series there at the range's first step: that point is the baseline.
  // One that appears later began at 0 (the agent counts from its start).
  double previous = series.points.front().time_s <= range_start_s + step_s / 2
                        ? series.points.front().value
                        : 0;
  for (const PromPoint& p : series.points) {
    if (!std::isfinite(p.value)) continue;
    double rise = p.value - previous;
    if (p.value < previous) rise = p.value;  // the agent restarted
    previous = p.value;
    if (rise < 0.5) continue;
    const auto count = static_cast<std::size_t>(std::lround(rise));
    AddXidEvent(series, p.time_s, code, count,
                "Xid " + std::to_string(code) + " (gpudoctor_xid_events_total rose by " +
                    std::to_string(count) + ")");
  }
}

std::vector<std::string> SeriesReadings::Nodes() const {
  std::vector<std::string> out;
  for (const auto& [name, _] : nodes_) out.push_back(name);
  return out;
}

DiagnosisInput SeriesReadings::InputFor(const std::string& node, const Config& config,
                                        WallTime from, WallTime to) const {
  DiagnosisInput input;
  input.config = config;
  input.recorded = true;
  input.window_from = from;
  input.window_to = to;
  input.hostname = node;
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return input;
  std::map<std::string, std::string> id_of_key;  // GPU key -> the id the rules see
  for (const auto& [key, h] : it->second.gpus) {
    id_of_key[key] = h.labels.pci_bus_id.empty() ? key : h.labels.pci_bus_id;
  }
  for (const auto& [key, h] : it->second.gpus) {
    if (h.at.empty()) continue;
    GpuSeries s;
    s.key = id_of_key[key];
    for (const auto& [t, reading] : h.at) {
      GpuStatus g = reading;
      g.index = IndexOfGpuLabel(h.labels.gpu);
      g.pci_bus_id = IsIndexKey(s.key) ? "" : s.key;
      g.uuid = h.labels.uuid;
      g.name = h.labels.model;
      s.readings.push_back(std::move(g));
      s.times.push_back(TimeOfUnixSeconds(t));
    }
    input.gpus.push_back(std::move(s));
  }
  std::sort(input.gpus.begin(), input.gpus.end(), [](const GpuSeries& a, const GpuSeries& b) {
    return a.latest().index != b.latest().index ? a.latest().index < b.latest().index
                                                : a.key < b.key;
  });
  input.gpu_readings = !input.gpus.empty();
  input.nvml_loaded = input.gpu_readings;
  input.kernel = KernelFacts{};
  input.kernel->events = it->second.events;
  for (KernelEvent& e : input.kernel->events) e.pci_bus_id = id_of_key[e.pci_bus_id];
  std::sort(input.kernel->events.begin(), input.kernel->events.end(),
            [](const KernelEvent& a, const KernelEvent& b) { return a.time < b.time; });
  input.kernel->sources = {SourceStatus{"prometheus series of " + node, true, ""}};
  return input;
}

}  // namespace gpudoctor
