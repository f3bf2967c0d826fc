// The load the fake libcuda (tests/fake_cuda) puts on a GPU. The fake
// libcuda finds fake_nvml_hook_load with dlopen("libnvidia-ml.so.1",
// RTLD_NOLOAD) and dlsym, and calls it for every kernel it runs: from then
// on, for as long as the calls keep coming, the GPU reads as loaded
// (ApplyLoad) and the scenario's "under_load" faults strike, at their at_s
// after the first load began.
#include <algorithm>
#include <cstring>

#include "fake_state.h"

namespace fake {

bool UnderLoad(const FakeGpu& gpu, double t) {
  return gpu.load_start_t && t - gpu.load_last_t <= kLoadHoldSeconds;
}

void ApplyLoad(const FakeGpu& gpu, double t, gpudoctor::GpuStatus& now) {
  double loaded_s = t - *gpu.load_start_t;
  now.utilization_gpu_percent = 100;
  if (now.power_limit_w) now.power_draw_w = 0.97 * *now.power_limit_w;
  if (now.temperature_c) {
    now.temperature_c = *now.temperature_c + static_cast<std::int64_t>(2 * std::min(loaded_s, 10.0));
  }
  for (const auto& [name, timeline] : gpu.load_metrics) {
    if (auto value = timeline.At(loaded_s)) SetMetricField(now, name, *value);
  }
}

}  // namespace fake

// Returns 1 when the GPU with this bus id is lost (a "lost" fault struck),
// 0 when it took the load, -1 when the library is not initialised or no GPU
// has this bus id.
extern "C" __attribute__((visibility("default"))) int fake_nvml_hook_load(
    const char* pci_bus_id) {
  fake::State& s = fake::TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.refcount == 0 || pci_bus_id == nullptr) return -1;
  std::string bus = gpudoctor::NormalizePciBusId(pci_bus_id);
  for (fake::FakeGpu& gpu : s.scenario.gpus) {
    if (gpu.status.pci_bus_id != bus) continue;
    double t = fake::ElapsedLocked(s);
    if (!gpu.load_start_t) {
      gpu.load_start_t = t;
      for (fake::Fault f : gpu.load_faults) {
        f.at_s += t;
        gpu.faults.push_back(f);
      }
    }
    gpu.load_last_t = t;
    gpu.applied.reset();
    for (const fake::Fault& f : gpu.faults) {
      if (f.kind == fake::FaultKind::kLost && t >= f.at_s) return 1;
    }
    return 0;
  }
  return -1;
}

// How many NVML calls the library answered since it was loaded, for tests
// that count what a read costs (found like fake_nvml_hook_load).
extern "C" __attribute__((visibility("default"))) unsigned long long fake_nvml_calls() {
  return fake::TheState().calls.load(std::memory_order_relaxed);
}
