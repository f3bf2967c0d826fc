#include "cuda/cuda_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string_view>

namespace gpudoctor {

std::string ResolveCudaLibraryPath(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  if (const char* env = std::getenv("GPUDOCTOR_CUDA_LIBRARY"); env != nullptr && *env != '\0') {
    return env;
  }
  return "libcuda.so.1";
}

Result<std::shared_ptr<const CudaLibrary>> LoadCudaLibrary(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Error{ErrorCode::kUnavailable, "cannot load the CUDA driver library " + path + ": " +
                                              (why ? why : "unknown error")};
  }
  auto lib = std::make_shared<CudaLibrary>();
  lib->path = path;
#define GPUDOCTOR_CUDA_RESOLVE(name, params) \
  lib->fn.name = reinterpret_cast<CUresult(*) params>(dlsym(handle, #name));
  CUDA_FUNCTIONS(GPUDOCTOR_CUDA_RESOLVE)
#undef GPUDOCTOR_CUDA_RESOLVE
  auto& f = lib->fn;
  if (f.cuDevicePrimaryCtxRelease_v2 == nullptr) {
    f.cuDevicePrimaryCtxRelease_v2 = f.cuDevicePrimaryCtxRelease;
  }
  const char* missing = nullptr;
#define GPUDOCTOR_CUDA_REQUIRE(name, params) \
  if (missing == nullptr && f.name == nullptr && std::string_view(#name) != "cuDevicePrimaryCtxRelease") \
    missing = #name;
  CUDA_FUNCTIONS(GPUDOCTOR_CUDA_REQUIRE)
#undef GPUDOCTOR_CUDA_REQUIRE
  if (missing != nullptr) {
    return Error{ErrorCode::kCorrupt,
                 path + " is not a usable CUDA driver library: symbol " + missing + " is missing"};
  }
  return std::shared_ptr<const CudaLibrary>(std::move(lib));
}

std::string CudaCallError(const CudaLibrary& lib, const char* call, CUresult rc) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (lib.fn.cuGetErrorName == nullptr || lib.fn.cuGetErrorName(rc, &name) != CUDA_SUCCESS) {
    name = nullptr;
  }
  if (lib.fn.cuGetErrorString == nullptr || lib.fn.cuGetErrorString(rc, &text) != CUDA_SUCCESS) {
    text = nullptr;
  }
  std::string out = std::string(call) + ": ";
  out += name != nullptr ? std::string(name) : "CUDA error " + std::to_string(rc);
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

}  // namespace gpudoctor
