// The stop and reload requests a running agent takes from its signal
// handlers, and the agent loop's sleep between samples, which such a
// request ends at once: the loop sleeps until the next sample instead of
// waking every few hundred milliseconds to look at a flag.
#pragma once

#include <atomic>
#include <chrono>

namespace gpudoctor {

class AgentSignals {
 public:
  AgentSignals();
  ~AgentSignals();
  AgentSignals(const AgentSignals&) = delete;
  AgentSignals& operator=(const AgentSignals&) = delete;

  // Both are async-signal-safe (an atomic store and a write to an eventfd).
  void RequestStop();
  void RequestReload();

  bool stop_requested() const { return stop_.load(); }
  // True once per request.
  bool TakeReload() { return reload_.exchange(false); }

  // Sleeps until `deadline` or a request, whichever comes first. Falls back
  // to sleeping in 200 ms steps when the eventfd could not be made.
  void WaitUntil(std::chrono::steady_clock::time_point deadline);

 private:
  void Wake();
  std::atomic<bool> stop_{false};
  std::atomic<bool> reload_{false};
  int wake_fd_ = -1;
};

}  // namespace gpudoctor
