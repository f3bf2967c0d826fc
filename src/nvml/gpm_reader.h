// GPM (GPU performance monitoring, nvml.h 11.8 / R520 on, Hopper and later):
// SM activity and occupancy, pipe activity, DRAM bandwidth, PCIe and NVLink
// rates, as metrics between two samples of the GPU's counters.
//
// A session keeps one GpmState per GPU. Each read of the GPU takes a sample
// and computes the metrics since the sample before, so every interval is
// bounded by two samples and its metrics cover all of it (as DCGM's do). The
// first read of a session has no sample before: one is taken first (the
// session's prime pass, or at the start of the read) and the read's sample at
// least kGpmMinInterval after it. A GPU that nvmlGpmQueryDeviceSupport calls
// unsupported, or a driver without GPM, gives null metrics and is asked once.
//
// Thread-safety: a GpmState is used by one read at a time (the session reads
// a GPU on one worker at a time); FreeGpm after the last read.
#pragma once

#include <chrono>
#include <map>
#include <optional>

#include "core/gpu_status.h"
#include "nvml/call_worker.h"
#include "nvml/nvml_library.h"

namespace gpudoctor {

// nvml.h: two samples less than 100 ms apart do not give valid metrics (the
// driver refreshes its counters no faster).
inline constexpr std::chrono::milliseconds kGpmMinInterval{110};

// GPM samples of one GPU instance of a GPU in MIG mode.
struct MigGpmSamples {
  nvmlGpmSample_t samples[2] = {nullptr, nullptr};
  int previous = -1;
  std::chrono::steady_clock::time_point previous_at{};
};

struct GpmState {
  enum class Support { kUnknown, kNo, kYes };
  Support support = Support::kUnknown;
  std::optional<bool> device_supported;  // what nvmlGpmQueryDeviceSupport said
  nvmlGpmSample_t samples[2] = {nullptr, nullptr};
  int previous = -1;  // which of samples holds the last sample; -1: none
  std::chrono::steady_clock::time_point previous_at{};
  std::map<unsigned, MigGpmSamples> mig;  // by GPU instance id
  // True when the GPU still needs its first sample (prime pass).
  bool NeedsPrime() const {
    return support == Support::kUnknown || (support == Support::kYes && previous < 0);
  }
};

namespace nvml_detail {
class Reader;
// Asks for GPM support once, allocates the two samples and takes the first
// sample when there is none. Null metrics when unsupported.
void BeginGpm(Reader& r, nvmlDevice_t dev, GpmState& state, GpuStatus& g);
// Takes this read's sample (waiting out kGpmMinInterval since the previous)
// and fills the metrics between the two.
void FinishGpm(Reader& r, nvmlDevice_t dev, GpmState& state, GpuStatus& g);
// With MIG mode on and GPM supported: the metrics of each GPU instance
// (nvmlGpmMigSampleGet) into g.mig_devices. A GPU instance without a sample
// yet gets two, kGpmMinInterval apart (one wait for all of them); later
// reads use the previous read's.
void FinishMigGpm(Reader& r, nvmlDevice_t dev, GpmState& state, GpuStatus& g);
}  // namespace nvml_detail

// The prime pass: gets the handle of GPU `index` and runs BeginGpm, so that
// the reads after it need not wait for a first sample each in turn. Writes
// out.state on a lost or failed GPU, like ReadGpu.
void PrimeGpm(const NvmlFunctions& fn, unsigned index, CallTracker& tracker, GpmState& state,
              GpuStatus& out);

// Frees the samples (no driver call when none were allocated).
void FreeGpm(const NvmlFunctions& fn, GpmState& state);

}  // namespace gpudoctor
