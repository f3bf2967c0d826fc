// The fake NVML's process-wide state and the common path of every device
// call: check init and the handle, apply the GPU's faults, then run the body
// under the state lock against the GPU's values at the current scenario time.
//
// Thread-safety: one mutex guards the state. It is released while a "slow"
// fault sleeps and while a "hang" fault blocks, so other GPUs keep answering.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <atomic>
#include <mutex>
#include <string>
#include <string_view>

#include "fake_scenario.h"
#include "nvml/nvml_api.h"

// Every NVML symbol, declared from the one list in nvml_api.h so that the
// compiler checks each definition against it.
#define FAKE_NVML_DECLARE(name, params) \
  extern "C" __attribute__((visibility("default"))) nvmlReturn_t name params;
NVML_FUNCTIONS(FAKE_NVML_DECLARE)
#undef FAKE_NVML_DECLARE
extern "C" __attribute__((visibility("default"))) const char* nvmlErrorString(
    nvmlReturn_t result);

namespace fake {

struct State {
  std::mutex mu;
  int refcount = 0;
  Scenario scenario;  // meaningful while refcount > 0
  double time_offset_s = 0;
  double start_s = 0;  // steady clock, seconds, when the scenario was loaded
  // NVML calls answered since the library was loaded (each call passes
  // FunctionAnswerLocked once); read by tests through fake_nvml_calls.
  std::atomic<unsigned long long> calls{0};
};

// Never destroyed, so that a thread stuck in a "hang" fault at exit is safe.
State& TheState();

// Seconds since the scenario was loaded plus FAKE_NVML_TIME_OFFSET_S.
double ElapsedLocked(const State& state);
double SteadySeconds();

// The values of one GPU for the duration of one call (the state lock held).
struct GpuCall {
  unsigned index = 0;
  FakeGpu* gpu = nullptr;  // base state, for setters
  const gpudoctor::GpuStatus& now;  // base with metrics applied
  double t = 0;  // scenario time of the call
};

// How long the metrics applied for one call serve the next calls on the same
// GPU: the calls of one read of a GPU see one snapshot, as a driver's counters
// would, and the fake does not rebuild the whole status for every call (it
// would otherwise dominate what the agent benchmark measures).
constexpr double kSnapshotSeconds = 0.005;

// A GPU is under load while the fake libcuda called fake_nvml_hook_load for
// it within the last kLoadHoldSeconds (fake_load_hook.cpp).
constexpr double kLoadHoldSeconds = 0.5;
bool UnderLoad(const FakeGpu& gpu, double t);
// What the load does to the GPU's values at scenario time t: utilisation
// 100 %, power at 97 % of its limit, temperature climbing 2 °C a second for
// 10 s; then the scenario's "under_load" metrics, which win.
void ApplyLoad(const FakeGpu& gpu, double t, gpudoctor::GpuStatus& now);

nvmlDevice_t HandleOf(unsigned index);
// Index of a handle, or -1 when it is not one of ours.
int IndexOf(nvmlDevice_t device);

// MIG device handles: the `slot`th entry of GPU `gpu`'s "mig_devices".
nvmlDevice_t MigHandleOf(unsigned gpu, unsigned slot);
struct MigSlot {
  int gpu = -1;  // -1 when the handle is not a MIG device handle
  unsigned slot = 0;
};
MigSlot MigOf(nvmlDevice_t device);

// With the lock held: checks init and the index, applies faults (slow, hang,
// lost and error faults naming one of `fields`). On NVML_SUCCESS the lock is
// still held and *gpu, *now and *t are set; *now stays valid while it is.
// `function` is the NVML symbol being served (for "lost" faults that keep
// the handle and PCI info).
nvmlReturn_t EnterGpu(std::string_view function, unsigned index,
                      std::unique_lock<std::mutex>& lock,
                      std::initializer_list<std::string_view> fields,
                      FakeGpu** gpu, const gpudoctor::GpuStatus** now,
                      double* t);

// With the lock held and the library initialised: what the scenario's
// driver answers for `function` before anything else (the driver profile's
// FUNCTION_NOT_FOUND for a function its generation lacks, or a
// "function_errors" entry), or NVML_SUCCESS to serve it.
nvmlReturn_t FunctionAnswerLocked(std::string_view function);

// The first active error fault of the GPU for `field`, or NVML_SUCCESS.
nvmlReturn_t ErrorFaultFor(const FakeGpu& gpu, std::string_view field,
                           double t);

// Serves the device call `function` (pass __func__): the function's answer
// (FunctionAnswerLocked), the handle, the GPU's faults, then body(GpuCall).
template <typename Body>
nvmlReturn_t WithGpu(std::string_view function, nvmlDevice_t device,
                     std::initializer_list<std::string_view> fields,
                     Body&& body) {
  std::unique_lock<std::mutex> lock(TheState().mu);
  if (TheState().refcount == 0) return NVML_ERROR_UNINITIALIZED;
  if (nvmlReturn_t rc = FunctionAnswerLocked(function); rc != NVML_SUCCESS) {
    return rc;
  }
  int index = IndexOf(device);
  // A MIG device handle: its GPU's faults apply, and the body sees the MIG
  // device's own values (uuid, memory, GPM; the rest null).
  const MigSlot mig = index < 0 ? MigOf(device) : MigSlot{};
  if (index < 0) index = mig.gpu;
  if (index < 0) return NVML_ERROR_INVALID_ARGUMENT;
  FakeGpu* gpu = nullptr;
  const gpudoctor::GpuStatus* now = nullptr;
  double t = 0;
  nvmlReturn_t rc = EnterGpu(function, static_cast<unsigned>(index), lock,
                             fields, &gpu, &now, &t);
  if (rc != NVML_SUCCESS) return rc;
  if (mig.gpu >= 0) {
    if (mig.slot >= now->mig_devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
    return body(GpuCall{static_cast<unsigned>(index), gpu, now->mig_devices[mig.slot].status, t});
  }
  return body(GpuCall{static_cast<unsigned>(index), gpu, *now, t});
}

// Copies text into an NVML string buffer (INSUFFICIENT_SIZE when short;
// NOT_SUPPORTED for an empty value).
nvmlReturn_t CopyString(const std::string& text, char* buffer, unsigned length);

// Writes a field to an NVML out-parameter: INVALID_ARGUMENT for a null
// pointer, NOT_SUPPORTED for a null field; values clamp to the C type.
nvmlReturn_t PutUint(const std::optional<std::int64_t>& value, unsigned* out);
nvmlReturn_t PutUll(const std::optional<std::int64_t>& value,
                    unsigned long long* out);
// value * scale, rounded (W -> mW with scale 1000).
nvmlReturn_t PutScaled(const std::optional<double>& value, double scale,
                       unsigned* out);
nvmlReturn_t PutEnabled(const std::optional<bool>& value, int* out);

}  // namespace fake
