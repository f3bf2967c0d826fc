// All software-version facts in one call, for `gpudoctor facts` and
// `diagnose`: driver (kernel module, libraries, NVML, GSP, persistence
// daemon), CUDA (toolkits, nvcc, libcudart), Python frameworks, and Fabric
// Manager. The driver version found first feeds the other checks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collect/cuda_versions.h"
#include "collect/driver_versions.h"
#include "collect/fabric_manager.h"
#include "collect/frameworks.h"
#include "facts/versions.h"

namespace gpudoctor {

struct VersionInputs {
  std::optional<DriverVersion> nvml_driver;  // nvmlSystemGetDriverVersion, when NVML started
  std::optional<CudaVersion> nvml_cuda;      // nvmlSystemGetCudaDriverVersion_v2
  // From the PCI collector; nullopt runs the small sysfs check here.
  std::optional<bool> nvswitch_present;
  std::vector<std::string> python_envs;  // --python-env DIR (repeatable)
  // systemd reader for the live root (MakeSystemdServiceStateReader()); null
  // under --root, where pid files stand in and the FM service is "not available".
  ServiceStateReader* services = nullptr;
  bool run_programs = true;  // nvcc / nv-fabricmanager --version; only when the root is "/"
};

VersionFacts CollectVersionFacts(const CollectContext& ctx, const VersionInputs& inputs);

}  // namespace gpudoctor
