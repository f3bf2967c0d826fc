// The per-GPU tests of `gpudoctor stress`, each run on a thread of its own
// against one CudaGpu (made current on that thread first). Each stops at its
// deadline or when StressStopRequested(), between launches of at most a few
// tens of milliseconds, and frees what it allocated before returning.
// A CUDA failure ends the test on that GPU and comes back in `error`.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/active_run.h"
#include "cuda/cuda_gpu.h"

namespace gpudoctor {

using SteadyTime = std::chrono::steady_clock::time_point;

struct GpuTestError {
  std::string message;  // CudaCallError's text
  SteadyTime at;
};

// The FMA burn: launches of about kBurnLaunchTarget each, back to back, from
// `start_at` to `deadline`.
struct BurnOutcome {
  double flops = 0;      // floating-point operations done
  double kernel_ms = 0;  // time the launches took, by CUDA events
  std::optional<SteadyTime> first_launch;
  std::optional<GpuTestError> error;
};
inline constexpr std::chrono::milliseconds kBurnLaunchTarget{20};
BurnOutcome RunBurn(CudaGpu& gpu, SteadyTime start_at, SteadyTime deadline);

// Device-to-device copies with the copy kernel, timed by events: one
// untimed warm-up, then up to kHbmRepetitions.
struct HbmOutcome {
  std::vector<double> gbps;  // read + write bytes per second of each repetition, 1e9
  std::optional<SteadyTime> first_launch;
  std::optional<GpuTestError> error;
};
inline constexpr int kHbmRepetitions = 20;
HbmOutcome RunHbm(CudaGpu& gpu, SteadyTime deadline);

// Write/verify of 0x00, 0xFF, 0xAA, 0x55 and address-in-address over
// `fraction` of the free device memory (less when that much cannot be had).
struct MemoryOutcome {
  MemoryTestResult result;  // NVML's counters are left for the caller
  std::optional<SteadyTime> first_launch;
  std::optional<GpuTestError> error;
};
MemoryOutcome RunMemory(CudaGpu& gpu, double fraction, SteadyTime deadline);

// Pinned host-to-device, then device-to-host, then both at once (two
// streams) copies of 256 MiB, timed by events: one untimed warm-up each,
// then up to kPcieRepetitions.
struct PcieOutcome {
  std::vector<double> h2d_gbps, d2h_gbps;  // each repetition, 1e9 bytes per second
  std::vector<double> bidir_gbps;          // both directions at once, bytes of both
  std::optional<SteadyTime> first_copy;
  std::optional<GpuTestError> error;
};
inline constexpr int kPcieRepetitions = 10;
PcieOutcome RunPcie(CudaGpu& gpu, SteadyTime deadline);

// Copies of 256 MiB from every GPU to every other, one pair at a time (so
// that each link is measured alone), peer access enabled where the driver
// offers it: one untimed warm-up, then up to kP2pRepetitions per pair.
struct PeerCopyOutcome {
  std::size_t src = 0, dst = 0;  // positions in the `gpus` given
  bool peer_access = false;
  std::vector<double> gbps;
};
struct P2pOutcome {
  std::vector<PeerCopyOutcome> pairs;
  std::optional<SteadyTime> first_copy;
  std::optional<GpuTestError> error;
  std::size_t error_gpu = 0;  // position of the GPU the error came from
};
inline constexpr int kP2pRepetitions = 5;
P2pOutcome RunP2p(const std::vector<CudaGpu*>& gpus, SteadyTime deadline);

// The median of values (nullopt when empty).
std::optional<double> MedianOf(std::vector<double> values);

}  // namespace gpudoctor
