// Loads libnvidia-ml with dlopen and resolves our declared symbols with dlsym.
// Optional symbols that this driver does not export stay null; callers treat
// a null function like one answering NVML_ERROR_FUNCTION_NOT_FOUND: they fall
// back to the older call where there is one (nvml/field_reader.h). The library is never
// dlclose()d: a hung call may still be running inside it.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "nvml/nvml_api.h"

namespace gpudoctor {

struct NvmlFunctions {
#define GPUDOCTOR_NVML_POINTER(name, params) nvmlReturn_t(*name) params = nullptr;
  NVML_FUNCTIONS(GPUDOCTOR_NVML_POINTER)
#undef GPUDOCTOR_NVML_POINTER
  nvmlErrorString_fn nvmlErrorString = nullptr;
};

struct NvmlLibrary {
  std::string path;  // what was opened
  NvmlFunctions fn;  // fallbacks already applied (e.g. nvmlInit_v2 <- nvmlInit)
};

// The path to open: explicit, else $GPUDOCTOR_NVML_LIBRARY, else
// "libnvidia-ml.so.1" (searched by the dynamic loader).
std::string ResolveNvmlLibraryPath(const std::string& explicit_path);

// Opens and resolves. Errors: kUnavailable when the file cannot be opened
// ("no NVIDIA driver"), kCorrupt when a required symbol is missing.
Result<std::shared_ptr<const NvmlLibrary>> LoadNvmlLibrary(const std::string& path);

}  // namespace gpudoctor
