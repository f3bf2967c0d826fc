// nvmlReturn_t in one place: its name, a plain-English message, and how
// gpudoctor treats it.
#pragma once

#include <string>

#include "core/result.h"
#include "nvml/nvml_api.h"

namespace gpudoctor {

// "NVML_ERROR_GPU_IS_LOST"; "NVML_ERROR_<n>" for unknown values.
std::string NvmlReturnName(nvmlReturn_t code);
// "the GPU has fallen off the bus or is otherwise inaccessible".
std::string NvmlReturnMessage(nvmlReturn_t code);
// The return code for a name, or -1.
nvmlReturn_t NvmlReturnFromName(const std::string& name);
// Error value for a failed call: "<call>: <message> (NVML_ERROR_...)".
Error NvmlError(nvmlReturn_t code, const std::string& call);
// What to tell a user when nvmlInit fails: what is missing and what to do.
std::string NvmlInitAdvice(nvmlReturn_t code);

}  // namespace gpudoctor
