// Installed CUDA outside any framework: toolkits under /usr/local/cuda*,
// `nvcc --version` (only when the root is "/"), and libcudart files on the
// library path. Each is compared with what the driver supports
// (knowledge/cuda_driver_table.h) when the driver version is known.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "facts/versions.h"
#include "knowledge/cuda_driver_table.h"
#include "parse/cuda_versions.h"

namespace gpudoctor {

struct CudaCollectOptions {
  std::optional<DriverVersion> driver;     // kernel module / NVML driver version
  std::optional<CudaVersion> driver_cuda;  // nvmlSystemGetCudaDriverVersion_v2
  bool run_nvcc = true;                    // ignored unless the root is "/"
};

CudaFacts CollectCudaVersions(const CollectContext& ctx, const CudaCollectOptions& options);

}  // namespace gpudoctor
