#include "rules/engine/gpu_broken.h"

#include <string_view>

namespace gpudoctor {
namespace {

// "ERR!" is how the default nvidia-smi table shows such a failure
// (parse/nvsmi_table.h).
constexpr std::string_view kBrokenGpuErrors[] = {"NVML_ERROR_UNKNOWN", "NVML_ERROR_GPU_IS_LOST",
                                                 "NVML_ERROR_RESET_REQUIRED", "NVML_ERROR_TIMEOUT",
                                                 "ERR!"};

}  // namespace

std::size_t BrokenFieldCount(const GpuStatus& g) {
  std::size_t count = 0;
  for (const auto& [field, error] : g.field_errors) {
    for (std::string_view code : kBrokenGpuErrors) {
      if (error.find(code) != std::string::npos) {
        ++count;
        break;
      }
    }
  }
  return count;
}

bool AnswersMostlyWithErrors(const GpuStatus& g) { return BrokenFieldCount(g) >= kManyBrokenFields; }

}  // namespace gpudoctor
