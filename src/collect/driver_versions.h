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
#include "parse/driver_version.h"

namespace gpudoctor {

struct DriverLibraryFile {
  std::string path;     // "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.183.01"
  std::string library;  // "libnvidia-ml.so" or "libcuda.so"
  DriverVersion version;
  bool matches_kernel_module = true;  // true when there is no kernel module to compare with
};

struct GspFacts {
  std::optional<GspFirmwareParam> enable_gpu_firmware;  // /proc/driver/nvidia/params
  std::string firmware_dir;                             // "/lib/firmware/nvidia/535.183.01"
  std::vector<std::string> firmware_files;              // gsp*.bin names in firmware_dir
};

struct PersistencedFacts {
  std::string source;           // "nvidia-persistenced.service" or the pid file path
  std::optional<bool> running;  // nullopt: could not tell
  std::string active_state;     // from systemd, when read there
  std::string sub_state;
  std::optional<std::uint32_t> pid;
};

struct DriverFacts {
  std::optional<KernelModuleVersion> kernel_module;
  std::vector<DriverLibraryFile> libraries;
  std::optional<DriverVersion> nvml_version;  // as passed in
  // The driver version to compare everything else with: kernel module, else
  // NVML, else the newest libnvidia-ml found.
  std::optional<DriverVersion> effective_version;
  std::string effective_source;
  bool version_mismatch = false;
  std::vector<std::string> mismatch_details;  // one line per disagreeing source
  GspFacts gsp;
  PersistencedFacts persistenced;
  std::vector<SourceStatus> sources;
};

struct DriverCollectOptions {
  std::optional<DriverVersion> nvml_version;  // nvmlSystemGetDriverVersion, when NVML started
  // Reads nvidia-persistenced.service. Pass the sd-bus reader when the root
  // is "/"; when null or failing, the daemon's pid file is checked instead.
  ServiceStateReader* services = nullptr;
};

DriverFacts CollectDriverVersions(const CollectContext& ctx, const DriverCollectOptions& options);

}  // namespace gpudoctor
