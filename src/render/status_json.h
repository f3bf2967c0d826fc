// status --json: the gpudoctor.status/v1 document.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/gpu_status.h"

namespace gpudoctor {

nlohmann::ordered_json GpuToJson(const GpuStatus& gpu);
nlohmann::ordered_json StatusToJson(const SystemStatus& status);

}  // namespace gpudoctor
