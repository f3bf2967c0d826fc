// Python ML frameworks and their CUDA builds, read from site-packages
// without running Python: PyTorch (torch/version.py), TensorFlow
// (build_info.py, dist-info), JAX CUDA plugins, and the nvidia-*-cuNN wheels
// that bundle the CUDA runtime. Each build is checked against the driver and
// each environment for CUDA runtimes of mixed major versions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "facts/versions.h"
#include "knowledge/framework_compat.h"

namespace gpudoctor {

struct FrameworkCollectOptions {
  std::optional<DriverVersion> driver;
  std::optional<CudaVersion> driver_cuda;
  // Extra environments (--python-env DIR): a venv/conda env root or a
  // site-packages directory, as paths below the root.
  std::vector<std::string> python_envs;
};

FrameworkFacts CollectFrameworks(const CollectContext& ctx, const FrameworkCollectOptions& options);

}  // namespace gpudoctor
