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
#include "knowledge/framework_compat.h"

namespace gpudoctor {

struct FrameworkInstall {
  std::string name;                 // "torch", "tensorflow", "jax", "jaxlib"
  std::string version;              // "2.3.1+cu121"
  std::string source;               // the file or directory the version came from
  std::optional<CudaVersion> cuda;  // CUDA major.minor it was built with
  std::optional<int> cuda_major;    // when only the major is known (JAX plugins)
  std::string cuda_source;          // "torch/version.py", "+cu121 tag", "build_info.py", ...
  std::optional<std::string> cudnn;
  bool cpu_only = false;
  bool rocm = false;
  FrameworkCheck check;
};

struct CudaWheel {
  std::string name;     // normalised: "nvidia-cuda-runtime-cu12"
  std::string version;  // "12.1.105"
  int cuda_major = 0;
};

struct PythonEnvironment {
  std::string site_dir;  // "/opt/conda/lib/python3.11/site-packages"
  std::string origin;    // "system", "conda", "user", "option"
  std::vector<FrameworkInstall> frameworks;
  std::vector<CudaWheel> cuda_wheels;
  // The CUDA runtime pip wheels bundle (nvidia-cuda-runtime-cuNN), checked
  // against the driver: this is the runtime torch/jax wheels load.
  std::optional<CudaVersion> bundled_runtime;
  std::optional<CudaSupportVerdict> bundled_runtime_on_driver;
  std::vector<int> cuda_majors;          // distinct majors of frameworks and wheels
  std::vector<FrameworkIssueId> issues;  // environment-wide (mixed majors)
};

struct FrameworkFacts {
  std::optional<DriverVersion> driver;
  std::optional<CudaVersion> driver_cuda;
  std::vector<PythonEnvironment> environments;  // only those holding a framework or CUDA wheel
  std::vector<std::string> scanned_dirs;        // every site/dist-packages dir looked at
  std::vector<SourceStatus> sources;
};

struct FrameworkCollectOptions {
  std::optional<DriverVersion> driver;
  std::optional<CudaVersion> driver_cuda;
  // Extra environments (--python-env DIR): a venv/conda env root or a
  // site-packages directory, as paths below the root.
  std::vector<std::string> python_envs;
};

FrameworkFacts CollectFrameworks(const CollectContext& ctx, const FrameworkCollectOptions& options);

}  // namespace gpudoctor
