// Pure parsers for what Python ML frameworks leave on disk about their CUDA
// build, read without running Python: torch/version.py, TensorFlow's
// build_info.py, *.dist-info directory names and METADATA, PEP 440 local
// version tags ("+cu121") and the names of CUDA wheels (nvidia-*-cu12,
// jax-cuda12-plugin, cupy-cuda12x). No I/O; never throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "parse/version_numbers.h"

namespace gpudoctor {

// A value assigned in generated Python: 'text', True/False, None, or other.
struct PyValue {
  enum class Kind { kString, kTrue, kFalse, kNone, kOther };
  Kind kind = Kind::kOther;
  std::string text;  // the string's contents, or the raw token
};

// Finds `key` assigned at the start of a line (`key = 'v'`, `key: Optional[str] = 'v'`)
// or used as a quoted dict key (`'key': 'v'`, `['key'] = 'v'`, `('key', 'v')`).
std::optional<PyValue> FindPyValue(std::string_view text, std::string_view key);

// site-packages/torch/version.py.
struct TorchVersionPy {
  std::string version;              // __version__: "2.3.1+cu121"
  std::optional<std::string> cuda;  // "12.1"; nullopt for CPU/ROCm builds (None)
  std::optional<std::string> hip;   // ROCm builds
  std::string git_version;
};
// nullopt when there is no __version__.
std::optional<TorchVersionPy> ParseTorchVersionPy(std::string_view text);

// site-packages/tensorflow/python/platform/build_info.py (TF 2.x dict forms
// and TF 1.x flat cuda_version_number / cudnn_version_number variables).
struct TfBuildInfo {
  std::optional<std::string> cuda_version;   // "12.3"
  std::optional<std::string> cudnn_version;  // "8"
  std::optional<bool> is_cuda_build;
  std::optional<bool> is_rocm_build;
};
TfBuildInfo ParseTfBuildInfo(std::string_view text);

// PEP 503 name normalisation: lower case, runs of -_. become one '-'.
std::string NormalizeDistName(std::string_view name);

// "nvidia_cuda_runtime_cu12-12.1.105.dist-info" -> {"nvidia-cuda-runtime-cu12", "12.1.105"}.
struct DistName {
  std::string name;  // normalised
  std::string version;
};
std::optional<DistName> ParseDistInfoDirName(std::string_view dir_name);

// The Name: and Version: headers of a METADATA file (stops at the first blank line).
std::optional<DistName> ParseDistMetadata(std::string_view text);

// The build a PEP 440 local version tag names: "2.3.1+cu121" -> CUDA 12.1,
// "+cu92" -> 9.2, "+cpu", "+rocm6.4"; kNone when there is no tag.
struct LocalBuildTag {
  enum class Kind { kNone, kCuda, kCpu, kRocm, kOther };
  Kind kind = Kind::kNone;
  std::optional<CudaVersion> cuda;
  std::string text;  // the tag without '+'
};
LocalBuildTag ParseLocalBuildTag(std::string_view version);

// The CUDA major a wheel is built for, from its normalised name:
// "nvidia-cuda-runtime-cu12" -> {"nvidia-cuda-runtime", 12},
// "jax-cuda12-plugin" / "jax-cuda12-pjrt" -> {"jax-cuda-plugin"/"jax-cuda-pjrt", 12},
// "cupy-cuda12x" -> {"cupy", 12}. CUDA 13 renamed the toolkit component
// wheels without a suffix ("nvidia-cuda-runtime" 13.0.96): for
// "nvidia-cuda-*" names without "-cuNN" the major comes from `version`.
// nullopt for other names.
struct CudaWheelName {
  std::string family;
  int cuda_major = 0;
};
std::optional<CudaWheelName> ParseCudaWheelName(std::string_view normalized_name,
                                                std::string_view version = {});

}  // namespace gpudoctor
