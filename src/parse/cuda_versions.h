// Pure parsers for where an installed CUDA toolkit or runtime states its
// version: version.json (CUDA 11+), version.txt (CUDA 10 and older),
// `nvcc --version` output, and libcudart file names. No I/O; never throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "facts/versions.h"
#include "parse/version_numbers.h"

namespace gpudoctor {

// version.json: {"cuda": {"name": "CUDA SDK", "version": "12.2.2"}, ...}.
// The "cuda" entry's version is the toolkit version (major.minor.update).
std::optional<CudaVersion> ParseCudaVersionJson(std::string_view text);

// version.txt: "CUDA Version 10.1.243".
std::optional<CudaVersion> ParseCudaVersionTxt(std::string_view text);

// `nvcc --version`:
//   Cuda compilation tools, release 12.2, V12.2.140
std::optional<NvccVersion> ParseNvccVersion(std::string_view text);

// "libcudart.so.12.2.140" -> 12.2.140; "libcudart.so.11.0" -> 11.0;
// "libcudart.so.12" -> major only (minor -1). nullopt for other names.
struct CudartFileVersion {
  int major = 0;
  std::optional<CudaVersion> version;  // set when the name has a minor
};
std::optional<CudartFileVersion> ParseCudartFileName(std::string_view file_name);

}  // namespace gpudoctor
