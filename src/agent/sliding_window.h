// The agent's recent past: the readings and events of the last `span`, from
// which the rules are evaluated again every few seconds. Pure; bounded in
// memory by the span.
#pragma once

#include <chrono>
#include <deque>
#include <optional>
#include <vector>

#include "core/gpu_status.h"
#include "core/kernel_event.h"
#include "facts/diagnosis_input.h"
#include "window/window.h"

namespace gpudoctor {

class SlidingWindow {
 public:
  explicit SlidingWindow(std::chrono::milliseconds span) : span_(span) {}

  void AddReading(WallTime time, SystemStatus status);
  void AddEvent(KernelEvent event);  // events without a time are kept as "now"
  // The window becomes (now - span, now] (window/window.h); drops what
  // it does not hold.
  void Trim(WallTime now);

  // Readings and events of the window into `input` (gpus, the window
  // since the last Trim, else the readings' first to last; kernel events);
  // other evidence is left as it is.
  void Fill(DiagnosisInput& input) const;

  std::size_t readings() const { return readings_.size(); }
  const std::deque<KernelEvent>& events() const { return events_; }

 private:
  std::chrono::milliseconds span_;
  std::optional<Window> window_;  // since the last Trim
  std::deque<std::pair<WallTime, SystemStatus>> readings_;
  std::deque<KernelEvent> events_;
};

}  // namespace gpudoctor
