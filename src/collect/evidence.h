// All the evidence gpudoctor collects on a live machine (or below --root), in
// one struct: the NVML reading, host CPU and memory, PCI devices and dropped
// GPUs, software versions, network, and kernel-log events. `facts` prints it;
// diagnosis rules read it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "collect/dropped_gpus.h"
#include "collect/host_facts.h"
#include "collect/kernel_facts.h"
#include "collect/net_facts.h"
#include "collect/pci_devices.h"
#include "collect/process_info.h"
#include "collect/versions.h"
#include "core/gpu_status.h"
#include "nvml/nvml_session.h"

namespace gpudoctor {

struct Evidence {
  WallTime collected_at;
  std::string root;
  SystemStatus nvml;
  HostFacts host;
  std::vector<ProcessInfo> gpu_processes;  // the pids NVML reports, described
  PciFacts pci;
  std::vector<DroppedGpu> dropped_gpus;
  VersionFacts versions;
  NetFacts network;
  KernelFacts kernel;
};

struct EvidenceOptions {
  CollectContext ctx;
  std::chrono::milliseconds sample_window{1000};
  std::vector<PingTarget> ping_targets;
  std::vector<std::string> python_envs;
  std::optional<unsigned> expected_gpus;
  KernelFactsOptions kernel;
};

// Reads everything. `nvml` gives the GPU reading (one Sample()). Blocks for
// about sample_window (host and network rates are measured concurrently).
Evidence CollectEvidence(NvmlSession& nvml, const EvidenceOptions& options);

// The same from a reading already taken (diagnose samples NVML itself while
// this runs on another thread). Does not touch NVML.
Evidence CollectEvidence(const SystemStatus& nvml_reading, const EvidenceOptions& options);

}  // namespace gpudoctor
