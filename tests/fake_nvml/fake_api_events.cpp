// Events: Xid faults of the scenario are delivered through
// nvmlEventSetWait_v2, each once, to a set that registered the GPU.
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "fake_state.h"

struct nvmlEventSet_st {
  std::map<unsigned, unsigned long long> registered;  // GPU index -> types
};

namespace {

using fake::TheState;

// Live sets; guarded by the state mutex, never destroyed.
std::set<nvmlEventSet_t>& Sets() {
  static auto* sets = new std::set<nvmlEventSet_t>();
  return *sets;
}

// Hands out the first due, undelivered Xid of a registered GPU.
bool TakeXid(nvmlEventSet_t set, nvmlEventData_t* data) {
  fake::State& s = TheState();
  double t = fake::ElapsedLocked(s);
  for (const auto& [index, types] : set->registered) {
    if (index >= s.scenario.gpus.size() ||
        (types & nvmlEventTypeXidCriticalError) == 0) {
      continue;
    }
    for (fake::Fault& f : s.scenario.gpus[index].faults) {
      if (f.kind != fake::FaultKind::kXid || f.delivered || t < f.at_s)
        continue;
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
  if (set == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *set = new nvmlEventSet_st();
  Sets().insert(*set);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  std::lock_guard<std::mutex> lock(TheState().mu);
  if (TheState().refcount == 0) return NVML_ERROR_UNINITIALIZED;
  if (Sets().erase(set) == 0) return NVML_ERROR_INVALID_ARGUMENT;
  delete set;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device,
                                              unsigned long long* eventTypes) {
  return fake::WithGpu(device, {}, [&](const fake::GpuCall&) -> nvmlReturn_t {
    if (eventTypes == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *eventTypes = nvmlEventTypeXidCriticalError;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device,
                                      unsigned long long eventTypes,
                                      nvmlEventSet_t set) {
  return fake::WithGpu(device, {}, [&](const fake::GpuCall& c) -> nvmlReturn_t {
    if (Sets().count(set) == 0) return NVML_ERROR_INVALID_ARGUMENT;
    // As NVML: any unsupported type and nothing is registered.
    if ((eventTypes & ~nvmlEventTypeXidCriticalError) != 0) {
      return NVML_ERROR_NOT_SUPPORTED;
    }
    set->registered[c.index] |= eventTypes;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data,
                                 unsigned int timeoutms) {
  using namespace std::chrono;
  const auto deadline = steady_clock::now() + milliseconds(timeoutms);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(TheState().mu);
      if (TheState().refcount == 0) return NVML_ERROR_UNINITIALIZED;
      if (Sets().count(set) == 0 || data == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
      }
      if (TakeXid(set, data)) return NVML_SUCCESS;
    }
    auto left = deadline - steady_clock::now();
    if (left <= steady_clock::duration::zero()) return NVML_ERROR_TIMEOUT;
    std::this_thread::sleep_for(
        std::min<steady_clock::duration>(left, milliseconds(100)));
  }
}

}  // extern "C"
