// Reads one GPU's full state through NVML into a GpuStatus. Runs inside a
// CallWorker job, so every driver call goes through the CallTracker.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "nvml/call_worker.h"
#include "nvml/gpm_reader.h"
#include "nvml/nvml_library.h"

namespace gpudoctor {

struct GpuReadOptions {
  bool read_processes = true;
  bool read_nvlink = true;
  bool read_nvlink_topology = false;  // each active link's version and remote end
  // The SW thermal slowdown counter's field id on this driver
  // (ThermalSlowdownFieldId); nullopt: only nvmlDeviceGetViolationStatus.
  std::optional<unsigned> thermal_slowdown_field;
  // How long an NVLink P2P matrix read into a NvLinkPeerCache is used again
  // (two calls a peer: 14 calls a GPU, 112 a sample on 8 GPUs) while the
  // GPU's fabric and link states stay as they were; 0: read every time.
  std::chrono::milliseconds nvlink_peers_refresh{0};
};

// One GPU's NVLink P2P matrix as last read, kept from one read to the next
// (GpuReadOptions::nvlink_peers_refresh). Used by one read at a time.
struct NvLinkPeerCache {
  std::vector<NvLinkPeer> peers;
  std::string key;  // the fabric and link states it was read under
  std::optional<std::chrono::steady_clock::time_point> read_at;
};

// Gets the handle for `index` and reads every field. Fields the GPU does not
// support stay null; other failures go to out.field_errors. When the GPU
// answers GPU_IS_LOST, out.state becomes kLost and reading stops; when the
// handle cannot be had for another reason, out.state becomes kError. With
// `gpm`, the GPM metrics since that state's previous sample (gpm_reader.h).
// With `peers`, the NVLink P2P matrix is read again only when the cached one
// is older than options.nvlink_peers_refresh or the GPU's fabric state,
// status, health or any NVLink's state changed since; else it is copied.
void ReadGpu(const NvmlFunctions& fn, unsigned index, const GpuReadOptions& options,
             CallTracker& tracker, GpuStatus& out, GpmState* gpm = nullptr,
             NvLinkPeerCache* peers = nullptr);

}  // namespace gpudoctor
