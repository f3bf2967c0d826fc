#include "nvml/nvml_library.h"

#include <dlfcn.h>

#include <cstdlib>

namespace gpudoctor {
namespace {

template <typename Fn>
void PreferNewer(Fn& newer, Fn older) {
  if (newer == nullptr) newer = older;
}

}  // namespace

std::string ResolveNvmlLibraryPath(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  if (const char* env = std::getenv("GPUDOCTOR_NVML_LIBRARY");
      env != nullptr && *env != '\0') {
    return env;
  }
  return "libnvidia-ml.so.1";
}

Result<std::shared_ptr<const NvmlLibrary>> LoadNvmlLibrary(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Error{ErrorCode::kUnavailable,
                 "cannot load the NVIDIA management library " + path + ": " +
                     (why ? why : "unknown error")};
  }
  auto lib = std::make_shared<NvmlLibrary>();
  lib->path = path;
#define GPUDOCTOR_NVML_RESOLVE(name, params) \
  lib->fn.name = reinterpret_cast<nvmlReturn_t(*) params>(dlsym(handle, #name));
  NVML_FUNCTIONS(GPUDOCTOR_NVML_RESOLVE)
#undef GPUDOCTOR_NVML_RESOLVE
  lib->fn.nvmlErrorString =
      reinterpret_cast<nvmlErrorString_fn>(dlsym(handle, "nvmlErrorString"));

  // Versioned symbols first, older exports as fallbacks. Only the
  // calls every driver since R450 answers are folded here; pairs whose newer
  // call may also answer FUNCTION_NOT_FOUND, NOT_SUPPORTED or DEPRECATED
  // (processes, CUDA version, temperature, clock reasons, memory) keep both
  // pointers, and the readers fall back per call.
  auto& f = lib->fn;
  PreferNewer(f.nvmlInit_v2, f.nvmlInit);
  PreferNewer(f.nvmlDeviceGetCount_v2, f.nvmlDeviceGetCount);
  PreferNewer(f.nvmlDeviceGetHandleByIndex_v2, f.nvmlDeviceGetHandleByIndex);

  const char* missing = nullptr;
  if (f.nvmlInit_v2 == nullptr) missing = "nvmlInit_v2/nvmlInit";
  else if (f.nvmlShutdown == nullptr) missing = "nvmlShutdown";
  else if (f.nvmlDeviceGetCount_v2 == nullptr) missing = "nvmlDeviceGetCount_v2";
  else if (f.nvmlDeviceGetHandleByIndex_v2 == nullptr) missing = "nvmlDeviceGetHandleByIndex_v2";
  if (missing != nullptr) {
    // Keep the handle open: unloading a half-initialised driver library is
    // not worth the risk, and this is a one-time error path.
    return Error{ErrorCode::kCorrupt,
                 path + " is not a usable NVML library: symbol " + missing +
                     " is missing"};
  }
  return std::shared_ptr<const NvmlLibrary>(std::move(lib));
}

}  // namespace gpudoctor
