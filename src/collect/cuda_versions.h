// Installed CUDA outside any framework: toolkits under /usr/local/cuda*,
// `nvcc --version` (only when the root is "/"), and libcudart files on the
// library path. Each is compared with what the driver supports
// (knowledge/cuda_driver_table.h) when the driver version is known.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "knowledge/cuda_driver_table.h"
#include "parse/cuda_versions.h"

namespace gpudoctor {

struct CudaToolkitInstall {
  std::string path;  // "/usr/local/cuda-12.2"
  // Where the version came from: version.json, version.txt, the runtime's
  // dist-info directory (wheel-built toolkits), or "directory name".
  std::string version_file;
  CudaVersion version;      // toolkit version; patch = update ("12.2.2") from version.json only
  bool is_default = false;  // /usr/local/cuda resolves here
  std::optional<CudaSupportVerdict> on_driver;
};

struct NvccInstall {
  std::string path;  // what was run: "/usr/local/cuda/bin/nvcc" or "nvcc"
  NvccVersion version;
  std::optional<CudaSupportVerdict> on_driver;
};

struct CudaRuntimeLibrary {
  std::string path;    // "/usr/local/cuda-12.2/lib64/libcudart.so.12.2.140"
  std::string origin;  // how the directory was found: "default", "/etc/ld.so.conf.d/...", "toolkit"
  int major = 0;
  std::optional<CudaVersion> version;           // nullopt when the name has the major only
  std::optional<CudaSupportVerdict> on_driver;  // only when the minor is known
};

struct CudaFacts {
  std::optional<DriverVersion> driver;         // as passed in
  std::optional<CudaVersion> driver_cuda;      // the driver's own report, as passed in
  std::optional<CudaVersion> driver_max_cuda;  // driver_cuda, else from the table
  std::vector<CudaToolkitInstall> toolkits;
  std::optional<NvccInstall> nvcc;
  std::vector<CudaRuntimeLibrary> runtimes;
  std::vector<SourceStatus> sources;
};

struct CudaCollectOptions {
  std::optional<DriverVersion> driver;     // kernel module / NVML driver version
  std::optional<CudaVersion> driver_cuda;  // nvmlSystemGetCudaDriverVersion_v2
  bool run_nvcc = true;                    // ignored unless the root is "/"
};

CudaFacts CollectCudaVersions(const CollectContext& ctx, const CudaCollectOptions& options);

}  // namespace gpudoctor
