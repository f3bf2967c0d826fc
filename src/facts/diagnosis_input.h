// Everything the rules read, from any source: a live `diagnose` (NVML
// samples over --duration plus the collected evidence), a recorded window
// (`report`), or files given to `analyze`. Each kind of evidence is optional:
// a rule that needs one that is absent is listed as not checked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/active_run.h"
#include "core/config.h"
#include "core/gpu_status.h"
#include "core/kernel_event.h"
#include "facts/host.h"
#include "facts/kernel.h"
#include "facts/latch.h"
#include "facts/network.h"
#include "facts/pci.h"
#include "facts/processes.h"
#include "facts/versions.h"

namespace gpudoctor {

// One GPU over the window: its readings in time order (at least one).
struct GpuSeries {
  // The GPU's one name (core/gpu_key.h): its bus id "0000:3b:00.0", or
  // "index:N" when it never gave one. Findings name GPUs by it.
  std::string key;
  std::vector<GpuStatus> readings;
  std::vector<std::optional<WallTime>> times;  // same length as readings
  const GpuStatus& latest() const { return readings.back(); }
};

struct DiagnosisInput {
  Config config;  // thresholds, PSU capacity, expected GPUs, sustained fraction

  std::optional<WallTime> window_from;
  std::optional<WallTime> window_to;

  // GPU readings. `gpu_readings` is true when at least one reading of the
  // system exists (even one where NVML failed: nvml_loaded false).
  bool gpu_readings = false;
  bool nvml_loaded = false;
  std::string nvml_error;
  std::optional<std::string> driver_version;
  std::optional<std::int64_t> cuda_driver_version;
  std::vector<GpuSeries> gpus;  // in index order of the latest reading

  std::optional<HostFacts> host;
  std::vector<ProcessInfo> gpu_processes;  // pids NVML reports, described (live)
  std::optional<PciFacts> pci;
  std::vector<DroppedGpu> dropped_gpus;  // meaningful only when pci is set
  std::optional<VersionFacts> versions;
  std::optional<NetFacts> network;
  // Earlier readings of the RDMA ports, oldest first, each with its read_at;
  // network->rdma is the latest. Live: the start of the sampling window; the
  // agent: its readings of the last hour. Counter rates, flaps and drops
  // come from these.
  std::vector<RdmaFacts> rdma_history;
  std::optional<KernelFacts> kernel;  // events of the window, and their sources
  // What `gpudoctor stress` measured; its 100 ms samples are `gpus`.
  std::optional<ActiveRun> active;
  // Findings the agent latched (facts/latch.h), open at the window's end:
  // the agent's and report's; empty elsewhere.
  std::vector<LatchedFinding> latched;

  // Identity for the report's `host` block.
  std::string hostname;
  std::string kernel_release;
  bool live = false;  // read from this machine now (diagnose) rather than files/store
  bool recorded = false;  // read from the agent's store (report), not from files
};

// Appends one reading of the whole system (taken at `time` when known). GPUs
// are matched by bus id; a GPU that appears later gets its own series.
// Updates nvml_loaded, nvml_error and the versions from the newest reading.
void AddReading(DiagnosisInput& input, const SystemStatus& status,
                std::optional<WallTime> time);

// The series of the GPU with this key (GpuSeries::key), or nullptr.
const GpuSeries* FindGpu(const DiagnosisInput& input, const std::string& key);

// "GPU 2 (0000:3b:00.0)" -- how findings name a GPU in text.
std::string GpuLabel(const GpuStatus& gpu);

}  // namespace gpudoctor
