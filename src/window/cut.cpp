#include "window/cut.h"

#include <utility>

namespace gpudoctor {

std::optional<Window> WindowOf(const DiagnosisInput& input) {
  if (!input.window_from || !input.window_to) return std::nullopt;
  return Window{*input.window_from, *input.window_to};
}

WindowCutter::WindowCutter(DiagnosisInput whole) : whole_(std::move(whole)) {
  // The shell is a copy of the rest, made without copying the bulk.
  std::vector<GpuSeries> gpus = std::move(whole_.gpus);
  whole_.gpus.clear();
  std::vector<KernelEvent> events;
  if (whole_.kernel) {
    events = std::move(whole_.kernel->events);
    whole_.kernel->events.clear();
  }
  shell_ = whole_;
  whole_.gpus = std::move(gpus);
  if (whole_.kernel) whole_.kernel->events = std::move(events);
}

DiagnosisInput WindowCutter::Cut(const Window& window) const {
  DiagnosisInput part = shell_;
  for (const GpuSeries& g : whole_.gpus) {
    GpuSeries kept;
    kept.key = g.key;
    for (std::size_t i = 0; i < g.readings.size(); ++i) {
      if (!g.times[i] || !window.Holds(*g.times[i])) continue;
      kept.readings.push_back(g.readings[i]);
      kept.times.push_back(g.times[i]);
    }
    if (!kept.readings.empty()) part.gpus.push_back(std::move(kept));
  }
  if (whole_.kernel) {
    const std::optional<Window> whole_window = WindowOf(whole_);
    const bool untimed_in = !whole_window || window.Covers(*whole_window);
    for (const KernelEvent& e : whole_.kernel->events) {
      if (e.time ? window.Holds(*e.time) : untimed_in) part.kernel->events.push_back(e);
    }
  }
  // A reading of the system that gave no GPU (NVML failed) stays one.
  part.gpu_readings = whole_.gpu_readings && (whole_.gpus.empty() || !part.gpus.empty());
  part.window_from = window.from;
  part.window_to = window.to;
  return part;
}

void CutToWindow(DiagnosisInput& input, const Window& window) {
  const WindowCutter cutter(std::move(input));
  input = cutter.Cut(window);
}

}  // namespace gpudoctor
