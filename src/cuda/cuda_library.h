// Loads the CUDA driver library (libcuda.so.1) with dlopen and resolves our
// declared symbols (cuda/cuda_api.h) with dlsym, as nvml/nvml_library.h does
// for NVML. Nothing links libcuda and no CUDA toolkit is needed: kernels are
// PTX text that the driver compiles (cuda/ptx_kernels.h). The library is
// never dlclose()d.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "cuda/cuda_api.h"

namespace gpudoctor {

struct CudaFunctions {
#define GPUDOCTOR_CUDA_POINTER(name, params) CUresult(*name) params = nullptr;
  CUDA_FUNCTIONS(GPUDOCTOR_CUDA_POINTER)
#undef GPUDOCTOR_CUDA_POINTER
};

struct CudaLibrary {
  std::string path;  // what was opened
  CudaFunctions fn;  // cuDevicePrimaryCtxRelease_v2 falls back to the older export
};

// The path to open: explicit, else $GPUDOCTOR_CUDA_LIBRARY, else
// "libcuda.so.1" (searched by the dynamic loader).
std::string ResolveCudaLibraryPath(const std::string& explicit_path);

// Opens and resolves every symbol. Errors: kUnavailable when the file cannot
// be opened ("no CUDA driver"), kCorrupt when a symbol is missing (all of
// them are exported by every driver since CUDA 11).
Result<std::shared_ptr<const CudaLibrary>> LoadCudaLibrary(const std::string& path);

// "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)";
// the driver's own name and text when it gives them, else the number.
std::string CudaCallError(const CudaLibrary& lib, const char* call, CUresult rc);

}  // namespace gpudoctor
