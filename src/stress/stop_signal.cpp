#include "stress/stop_signal.h"

#include <signal.h>

namespace gpudoctor {
namespace {

std::atomic<bool> g_stress_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the handler stores to it");

void OnStressSignal(int) { g_stress_stop.store(true); }

}  // namespace

void InstallStressStopHandlers() {
  g_stress_stop.store(false);
  struct sigaction action {};
  action.sa_handler = OnStressSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool StressStopRequested() { return g_stress_stop.load(); }

void RequestStressStop() { g_stress_stop.store(true); }

}  // namespace gpudoctor
