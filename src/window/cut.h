// Cutting a window of facts: the readings and events a window holds, by the
// one rule of window/window.h. Every front-end cuts with these (the agent's
// evidence stretches, report's timelines and active stretches, report
// --prometheus, fleet's "now" and its strip).
#pragma once

#include "facts/diagnosis_input.h"
#include "window/window.h"

namespace gpudoctor {

// Cuts many windows from one input without copying all of it each time:
// what is not a reading or an event is copied once. It owns the input
// (move it in; whole() gives it back).
class WindowCutter {
 public:
  explicit WindowCutter(DiagnosisInput whole);

  const DiagnosisInput& whole() const { return whole_; }

  // The input inside `window`: the readings whose time it holds (a GPU left
  // without any is dropped), the kernel events whose time it holds, and the
  // events without a time when `window` covers the whole input's window
  // (or the input has none). window_from and window_to become the window's.
  DiagnosisInput Cut(const Window& window) const;

 private:
  DiagnosisInput whole_;
  DiagnosisInput shell_;  // whole_ without its readings and events
};

// The input inside `window` (as WindowCutter::Cut), in place.
void CutToWindow(DiagnosisInput& input, const Window& window);

// The window the input was read for; nullopt when it has no from or to.
std::optional<Window> WindowOf(const DiagnosisInput& input);

}  // namespace gpudoctor
