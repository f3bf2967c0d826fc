// All the evidence gpudoctor collects on a live machine (or below --root), in
// one struct: the NVML reading, host CPU and memory, PCI devices and dropped
// GPUs, software versions, network, and kernel-log events. `facts` prints it;
// diagnose and the agent copy it into DiagnosisInput (facts/diagnosis_input.h).
// collect/evidence.h collects it.
#pragma once

#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "core/kernel_event.h"
#include "facts/host.h"
#include "facts/kernel.h"
#include "facts/network.h"
#include "facts/pci.h"
#include "facts/processes.h"
#include "facts/versions.h"

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

}  // namespace gpudoctor
