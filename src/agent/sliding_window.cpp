#include "agent/sliding_window.h"

#include <algorithm>

namespace gpudoctor {

void SlidingWindow::AddReading(WallTime time, SystemStatus status) {
  readings_.emplace_back(time, std::move(status));
}

void SlidingWindow::AddEvent(KernelEvent event) {
  if (!event.time) event.time = std::chrono::system_clock::now();
  events_.push_back(std::move(event));
}

void SlidingWindow::Trim(WallTime now) {
  window_ = Window{now - span_, now};
  while (!readings_.empty() && readings_.front().first <= window_->from) readings_.pop_front();
  // Events arrive roughly in time order; drop from the front while old.
  while (!events_.empty() && events_.front().time.value_or(now) <= window_->from) {
    events_.pop_front();
  }
}

void SlidingWindow::Fill(DiagnosisInput& input) const {
  input.gpus.clear();
  input.gpu_readings = false;
  for (const auto& [time, status] : readings_) gpudoctor::AddReading(input, status, time);
  if (window_) {
    input.window_from = window_->from;
    input.window_to = window_->to;
  } else if (!readings_.empty()) {
    input.window_from = readings_.front().first;
    input.window_to = readings_.back().first;
  }
  if (!input.kernel) input.kernel = KernelFacts{};
  input.kernel->events.assign(events_.begin(), events_.end());
  std::stable_sort(input.kernel->events.begin(), input.kernel->events.end(),
                   [](const KernelEvent& a, const KernelEvent& b) { return a.time < b.time; });
}

}  // namespace gpudoctor
