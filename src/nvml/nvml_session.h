// A session with the NVIDIA driver through NVML: loads the library with
// dlopen, initialises it, and samples every GPU. Every NVML call runs under a
// deadline; a GPU whose call timed out is marked hung, one that answered
// GPU_IS_LOST is marked lost, and neither is called again for the life of the
// session while the other GPUs keep being reported.
//
// The first read of a session gives each GPU a worker of its own, so that a
// slow driver costs what one GPU's read costs, not that times the GPUs. Once
// reads are fast, the GPUs are read in turn on one worker thread (one wake-up
// per sample, not one per GPU), and each gets its own again while reads are
// slow (read_lanes.h). A GPU that hangs is marked hung and the GPUs after it
// are read each on a fresh worker of its own, so one hung GPU costs a sample
// one deadline, as in parallel reading, and a hung driver two.
//
// Each reading carries how long the driver took per call while it was taken
// (GpuStatus::nvml_call_latency_ms: the median of that GPU's calls).
//
// Thread-safety: one thread at a time may call Sample().
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "core/gpu_status.h"
#include "nvml/read_lanes.h"

namespace gpudoctor {

class DriverOpener;

struct NvmlOptions {
  // Path of libnvidia-ml.so.1; empty means $GPUDOCTOR_NVML_LIBRARY, then the
  // system's "libnvidia-ml.so.1".
  std::string library_path;
  // Longest time one NVML call may take before its GPU is declared hung.
  std::chrono::milliseconds call_deadline{5000};
  // A read of all GPUs longer than this is slow: each GPU then gets its own
  // worker (read_lanes.h).
  std::chrono::milliseconds slow_read = kSlowGpuRead;
  bool read_processes = true;
  bool read_nvlink = true;
  // Also each active link's NVLink version and remote PCI bus id (two calls
  // a link; what `status` and `stress` show, not what the agent records).
  bool read_nvlink_topology = false;
  // How long each GPU's NVLink P2P matrix is used again from the session's
  // last read of it while the GPU's fabric and link states stay the same
  // (gpu_reader.h: NvLinkPeerCache); 0: read at every Sample(). The agent
  // sets kAgentNvlinkPeersRefresh.
  std::chrono::milliseconds nvlink_peers_refresh{0};
  // GPM metrics where the GPU supports them (nvml/gpm_reader.h). The first
  // Sample() of a session then takes about kGpmMinInterval longer.
  bool read_gpm = true;
  // Opens the driver (nvml/driver_opener.h). A caller that opens sessions
  // again and again after failures (the agent) passes one opener to all of
  // them, so that a hung nvmlInit holds one pending attempt, not one thread
  // per retry. Null: the session makes its own.
  std::shared_ptr<DriverOpener> opener;
};

// The agent's P2P matrix rate: at start, every 5 minutes, and at once when a
// GPU's fabric or link state changes.
inline constexpr std::chrono::milliseconds kAgentNvlinkPeersRefresh{5 * 60 * 1000};

class NvmlSession {
 public:
  virtual ~NvmlSession() = default;

  // Never fails: when the library or driver is missing, the session reports
  // it through Sample().nvml_loaded == false and nvml_error.
  static std::unique_ptr<NvmlSession> Open(const NvmlOptions& options);

  // Reads the system and every GPU now.
  virtual SystemStatus Sample() = 0;

  // True when some call never returned; the process must then leave with
  // std::_Exit, since NVML can neither be shut down nor unloaded safely.
  virtual bool HasAbandonedCalls() const = 0;

  // How many workers the next Sample() reads the GPUs on: one per GPU for the
  // first read (0 before the driver was opened) and while reads are slow,
  // else 1 (read_lanes.h).
  virtual std::size_t read_lanes() const = 0;
};

}  // namespace gpudoctor
