#include "fake_state.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>

namespace fake {
namespace {

// Handles are addresses inside this array: stable, distinct and checkable.
char g_handle_slots[kMaxGpus];
char g_mig_handle_slots[kMaxGpus * kMaxMigSlots];

const gpudoctor::GpuStatus& ApplyMetrics(FakeGpu& gpu, double t) {
  if (gpu.applied && t >= gpu.applied_t && t < gpu.applied_t + kSnapshotSeconds) {
    return *gpu.applied;
  }
  gpu.applied = gpu.status;
  gpu.applied_t = t;
  for (const auto& [name, timeline] : gpu.metrics) {
    if (auto value = timeline.At(t)) SetMetricField(*gpu.applied, name, *value);
  }
  if (UnderLoad(gpu, t)) ApplyLoad(gpu, t, *gpu.applied);
  for (const Fault& f : gpu.faults) {
    if (f.kind != FaultKind::kLinkDown || t < f.at_s) continue;
    for (gpudoctor::NvLinkStatus& l : gpu.applied->nvlinks) {
      if (l.link == f.link) l.active = false;
    }
  }
  return *gpu.applied;
}

[[noreturn]] void BlockForever() {
  // Touches no state: the process may be exiting around this thread.
  for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

}  // namespace

State& TheState() {
  static State* state = new State();
  return *state;
}

double SteadySeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double ElapsedLocked(const State& state) {
  return SteadySeconds() - state.start_s + state.time_offset_s;
}

nvmlDevice_t HandleOf(unsigned index) {
  return reinterpret_cast<nvmlDevice_t>(&g_handle_slots[index]);
}

nvmlDevice_t MigHandleOf(unsigned gpu, unsigned slot) {
  return reinterpret_cast<nvmlDevice_t>(&g_mig_handle_slots[gpu * kMaxMigSlots + slot]);
}

MigSlot MigOf(nvmlDevice_t device) {
  auto address = reinterpret_cast<std::uintptr_t>(device);
  auto first = reinterpret_cast<std::uintptr_t>(&g_mig_handle_slots[0]);
  if (address < first || address >= first + kMaxGpus * kMaxMigSlots) return {};
  auto offset = static_cast<unsigned>(address - first);
  if (offset / kMaxMigSlots >= TheState().scenario.gpus.size()) return {};
  return MigSlot{static_cast<int>(offset / kMaxMigSlots), offset % kMaxMigSlots};
}

int IndexOf(nvmlDevice_t device) {
  auto address = reinterpret_cast<std::uintptr_t>(device);
  auto first = reinterpret_cast<std::uintptr_t>(&g_handle_slots[0]);
  if (address < first || address >= first + kMaxGpus) return -1;
  auto index = static_cast<unsigned>(address - first);
  if (index >= TheState().scenario.gpus.size()) return -1;
  return static_cast<int>(index);
}

nvmlReturn_t ErrorFaultFor(const FakeGpu& gpu, std::string_view field,
                           double t) {
  for (const Fault& f : gpu.faults) {
    if (f.kind == FaultKind::kError && f.field == field && t >= f.at_s) {
      return f.error;
    }
  }
  return NVML_SUCCESS;
}

nvmlReturn_t FunctionAnswerLocked(std::string_view function) {
  TheState().calls.fetch_add(1, std::memory_order_relaxed);
  const auto& errors = TheState().scenario.function_errors;
  if (errors.empty()) return NVML_SUCCESS;
  auto it = errors.find(function);
  return it == errors.end() ? NVML_SUCCESS : it->second;
}

nvmlReturn_t EnterGpu(std::string_view function, unsigned index,
                      std::unique_lock<std::mutex>& lock,
                      std::initializer_list<std::string_view> fields,
                      FakeGpu** gpu_out, const gpudoctor::GpuStatus** now,
                      double* t_out) {
  State& s = TheState();
  if (s.refcount == 0) return NVML_ERROR_UNINITIALIZED;
  if (index >= s.scenario.gpus.size()) return NVML_ERROR_INVALID_ARGUMENT;
  int delay_ms = 0;
  double start = ElapsedLocked(s);
  for (const Fault& f : s.scenario.gpus[index].faults) {
    if (f.kind == FaultKind::kSlow && start >= f.at_s) delay_ms += f.delay_ms;
  }
  if (delay_ms > 0) {
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    lock.lock();
    // The library may have been shut down (or re-initialised) meanwhile.
    if (s.refcount == 0) return NVML_ERROR_UNINITIALIZED;
    if (index >= s.scenario.gpus.size()) return NVML_ERROR_INVALID_ARGUMENT;
  }
  FakeGpu& gpu = s.scenario.gpus[index];
  double t = ElapsedLocked(s);
  for (const Fault& f : gpu.faults) {
    if (f.kind == FaultKind::kHang && t >= f.at_s) {
      lock.unlock();
      BlockForever();
    }
  }
  const bool handle_or_pci = function == "nvmlDeviceGetHandleByIndex_v2" ||
                             function == "nvmlDeviceGetHandleByIndex" ||
                             function == "nvmlDeviceGetPciInfo_v3";
  for (const Fault& f : gpu.faults) {
    if (f.kind == FaultKind::kLost && t >= f.at_s &&
        !(f.keeps_pci_info && handle_or_pci)) {
      return NVML_ERROR_GPU_IS_LOST;
    }
  }
  for (std::string_view field : fields) {
    if (nvmlReturn_t rc = ErrorFaultFor(gpu, field, t); rc != NVML_SUCCESS) {
      return rc;
    }
  }
  *gpu_out = &gpu;
  *t_out = t;
  *now = &ApplyMetrics(gpu, t);
  return NVML_SUCCESS;
}

nvmlReturn_t CopyString(const std::string& text, char* buffer,
                        unsigned length) {
  if (buffer == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (text.empty()) return NVML_ERROR_NOT_SUPPORTED;
  if (length < text.size() + 1) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t PutUint(const std::optional<std::int64_t>& value, unsigned* out) {
  if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!value) return NVML_ERROR_NOT_SUPPORTED;
  *out = static_cast<unsigned>(std::clamp<std::int64_t>(*value, 0, UINT32_MAX));
  return NVML_SUCCESS;
}

nvmlReturn_t PutUll(const std::optional<std::int64_t>& value,
                    unsigned long long* out) {
  if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!value) return NVML_ERROR_NOT_SUPPORTED;
  *out = static_cast<unsigned long long>(std::max<std::int64_t>(*value, 0));
  return NVML_SUCCESS;
}

nvmlReturn_t PutScaled(const std::optional<double>& value, double scale,
                       unsigned* out) {
  if (!value)
    return out == nullptr ? NVML_ERROR_INVALID_ARGUMENT
                          : NVML_ERROR_NOT_SUPPORTED;
  return PutUint(std::llround(std::clamp(*value * scale, 0.0, 4.0e9)), out);
}

nvmlReturn_t PutEnabled(const std::optional<bool>& value, int* out) {
  if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!value) return NVML_ERROR_NOT_SUPPORTED;
  *out = *value ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}

}  // namespace fake
