// Driver versions outside NVML: the loaded kernel module
// (/proc/driver/nvidia/version), the user-space libraries on disk
// (libnvidia-ml.so.<ver>, libcuda.so.<ver>), the version NVML reported (if it
// started), and whether they disagree -- the cause of "Failed to initialize
// NVML: Driver/library version mismatch", found even when NVML refuses to
// start. Also GSP firmware mode and files, and the persistence daemon.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "collect/service_state.h"
#include "facts/versions.h"
#include "parse/driver_version.h"

namespace gpudoctor {

struct DriverCollectOptions {
  std::optional<DriverVersion> nvml_version;  // nvmlSystemGetDriverVersion, when NVML started
  // Reads nvidia-persistenced.service. Pass the sd-bus reader when the root
  // is "/"; when null or failing, the daemon's pid file is checked instead.
  ServiceStateReader* services = nullptr;
};

DriverFacts CollectDriverVersions(const CollectContext& ctx, const DriverCollectOptions& options);

}  // namespace gpudoctor
