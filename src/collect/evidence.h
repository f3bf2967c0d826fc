// Collects all the evidence gpudoctor reads on a live machine (or below
// --root) into one Evidence (facts/evidence.h): the NVML reading, host CPU and
// memory, PCI devices and dropped GPUs, software versions, network, and
// kernel-log events.
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
#include "facts/evidence.h"
#include "nvml/nvml_session.h"

namespace gpudoctor {

struct EvidenceOptions {
  CollectContext ctx;
  std::chrono::milliseconds sample_window{1000};
  std::vector<PingTarget> ping_targets;
  std::vector<std::string> python_envs;
  std::optional<unsigned> expected_gpus;
  std::vector<std::string> dataset_mounts;  // the config's [storage] dataset_mounts
  KernelFactsOptions kernel;
};

// Reads everything. `nvml` gives the GPU reading (one Sample()). Blocks for
// about sample_window (host and network rates are measured concurrently).
Evidence CollectEvidence(NvmlSession& nvml, const EvidenceOptions& options);

// The same from a reading already taken (diagnose samples NVML itself while
// this runs on another thread). Does not touch NVML.
Evidence CollectEvidence(const SystemStatus& nvml_reading, const EvidenceOptions& options);

}  // namespace gpudoctor
