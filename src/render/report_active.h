// The "active" part of a stress report: what each test measured per GPU,
// with the NVML samples of the burn summarised (power peak and average,
// clocks, temperature, clock event reasons seen), as JSON and as text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rules/engine/diagnosis_input.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// The report's "active" object (gpudoctor.report/v1).
nlohmann::ordered_json ActiveRunJson(const DiagnosisInput& input);
// The text report's "Measurements" section.
std::string ActiveRunText(const DiagnosisInput& input, Lang lang);

}  // namespace gpudoctor
