// The fake libcuda's view of the scenario file that drives the fake NVML
// (FAKE_NVML_SCENARIO): the GPUs of its "gpus" list (bus id and name as the
// fake NVML gives them) and their "cuda" keys, plus the top-level "cuda"
// keys. See README.md in this folder.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cuda/cuda_api.h"

namespace fake_cuda {

struct CudaGpu {
  std::string pci_bus_id;  // "0000:01:00.0"
  std::string name = "Fake GPU";
  int multiprocessors = 132;
  double hbm_gbps = 3000;      // device memory bandwidth the copy kernel sees
  double h2d_gbps = 50;        // pinned host to device
  double d2h_gbps = 50;        // device to host
  bool pcie_full_duplex = true;  // both directions at once (else one after the other)
  double burn_tflops = 50;     // FP32 rate of the burn kernel
  double p2p_gbps = 100;       // copies from this GPU to any other ...
  std::map<std::string, double> p2p_peer_gbps;  // ... except to these bus ids
  bool peer_access = true;     // cuDeviceCanAccessPeer's answer towards every peer
  std::uint64_t total_bytes = 80ull << 30;
  std::uint64_t free_bytes = 79ull << 30;
  // Byte offsets, into any verified allocation larger than 1 MiB, of words
  // that read back wrong.
  std::vector<std::uint64_t> mismatch_offsets;
  CUresult launch_error = CUDA_SUCCESS;  // what cuLaunchKernel answers ...
  double launch_error_after_s = 0;       // ... this long after the first launch
};

struct CudaScenario {
  CUresult init_error = CUDA_SUCCESS;
  int driver_version = 12020;
  std::vector<CudaGpu> gpus;
};

// Reads the file; an XML scenario (or none) gives no GPUs. On a malformed
// file returns nullopt and a one-line message naming it.
std::optional<CudaScenario> LoadCudaScenario(const char* path, std::string* error);

// "CUDA_ERROR_LAUNCH_FAILED" -> 719, for the codes cuda_api.h declares.
std::optional<CUresult> CudaResultByName(const std::string& name);
const char* CudaResultName(CUresult rc);

}  // namespace fake_cuda
