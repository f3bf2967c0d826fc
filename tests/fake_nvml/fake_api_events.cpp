// Events: Xid faults of the scenario are delivered through
// nvmlEventSetWait_v2, each once, to a set that registered the GPU.
#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <set>
#include <thread>

#include "fake_state.h"

struct nvmlEventSet_st {
  std::map<unsigned, unsigned long long> registered;  // GPU index -> types
  // A registration failed with something other than NOT_SUPPORTED: nvml.h
  // says the set is then undefined; this one answers NVML_ERROR_UNKNOWN.
  bool undefined = false;
};

namespace {

using fake::TheState;

// Live sets; guarded by the state mutex, never destroyed.
std::set<nvmlEventSet_t>& Sets() {
  static auto* sets = new std::set<nvmlEventSet_t>();
  return *sets;
}

// Hands out the first due, undelivered Xid of a registered GPU. Otherwise
// sets *next_at_s to the scenario time of the next undelivered one (or
// leaves it alone when there is none).
bool TakeXid(nvmlEventSet_t set, nvmlEventData_t* data, double* next_at_s) {
  fake::State& s = TheState();
  double t = fake::ElapsedLocked(s);
  for (const auto& [index, types] : set->registered) {
    if (index >= s.scenario.gpus.size() ||
        (types & nvmlEventTypeXidCriticalError) == 0) {
      continue;
    }
    for (fake::Fault& f : s.scenario.gpus[index].faults) {
      if (f.kind != fake::FaultKind::kXid || f.delivered) continue;
      if (t < f.at_s) {
        *next_at_s = std::min(*next_at_s, f.at_s);
        continue;
      }
      f.delivered = true;
      data->device = fake::HandleOf(index);
      data->eventType = nvmlEventTypeXidCriticalError;
      data->eventData = f.xid;
      data->gpuInstanceId = 0xFFFFFFFFu;
      data->computeInstanceId = 0xFFFFFFFFu;
      return true;
    }
  }
  return false;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  std::lock_guard<std::mutex> lock(TheState().mu);
  if (TheState().refcount == 0) return NVML_ERROR_UNINITIALIZED;
  if (nvmlReturn_t rc = fake::FunctionAnswerLocked(__func__); rc != NVML_SUCCESS) {
    return rc;
  }
  if (set == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *set = new nvmlEventSet_st();
  Sets().insert(*set);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  std::lock_guard<std::mutex> lock(TheState().mu);
  if (TheState().refcount == 0) return NVML_ERROR_UNINITIALIZED;
  if (nvmlReturn_t rc = fake::FunctionAnswerLocked(__func__); rc != NVML_SUCCESS) {
    return rc;
  }
  if (Sets().erase(set) == 0) return NVML_ERROR_INVALID_ARGUMENT;
  delete set;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device,
                                              unsigned long long* eventTypes) {
  return fake::WithGpu(__func__, device, {}, [&](const fake::GpuCall&) -> nvmlReturn_t {
    if (eventTypes == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *eventTypes = nvmlEventTypeXidCriticalError;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device,
                                      unsigned long long eventTypes,
                                      nvmlEventSet_t set) {
  nvmlReturn_t rc = fake::WithGpu(
      __func__, device, {"register_events"},
      [&](const fake::GpuCall& c) -> nvmlReturn_t {
        if (Sets().count(set) == 0) return NVML_ERROR_INVALID_ARGUMENT;
        if (set->undefined) return NVML_ERROR_UNKNOWN;
        // As NVML: any unsupported type and nothing is registered.
        if ((eventTypes & ~nvmlEventTypeXidCriticalError) != 0) {
          return NVML_ERROR_NOT_SUPPORTED;
        }
        set->registered[c.index] |= eventTypes;
        return NVML_SUCCESS;
      });
  if (rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_SUPPORTED &&
      rc != NVML_ERROR_UNINITIALIZED) {
    std::lock_guard<std::mutex> lock(TheState().mu);
    if (Sets().count(set) != 0) set->undefined = true;
  }
  return rc;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data,
                                 unsigned int timeoutms) {
  using namespace std::chrono;
  const auto deadline = steady_clock::now() + milliseconds(timeoutms);
  for (;;) {
    // Like the driver's wait, this sleeps until an event is due or the
    // timeout, not in short polls: the agent-cost benchmark runs the
    // watcher on this library and must not count a poll loop the real
    // driver does not have. Shutdown is noticed within 1 s.
    auto wake = deadline;
    {
      std::lock_guard<std::mutex> lock(TheState().mu);
      if (TheState().refcount == 0) return NVML_ERROR_UNINITIALIZED;
      if (nvmlReturn_t rc = fake::FunctionAnswerLocked(__func__); rc != NVML_SUCCESS) {
        return rc;
      }
      if (Sets().count(set) == 0 || data == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
      }
      if (set->undefined) return NVML_ERROR_UNKNOWN;
      double next_at_s = std::numeric_limits<double>::infinity();
      if (TakeXid(set, data, &next_at_s)) return NVML_SUCCESS;
      const double until_next_s = next_at_s - fake::ElapsedLocked(TheState());
      if (until_next_s < 1e6) {
        wake = std::min(wake, steady_clock::now() +
                                  duration_cast<steady_clock::duration>(
                                      duration<double>(std::max(until_next_s, 0.0) + 0.001)));
      }
    }
    const auto now = steady_clock::now();
    if (now >= deadline) return NVML_ERROR_TIMEOUT;
    std::this_thread::sleep_for(std::min<steady_clock::duration>(wake - now, seconds(1)));
  }
}

}  // extern "C"
