// The "active" part of a stress report: what each test measured per GPU,
// with the NVML samples of the burn summarised (power peak and average,
// clocks, temperature, clock event reasons seen), as JSON, and as the
// tables of render/active_tables.h in text, Markdown and HTML.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// The report's "active" object (gpudoctor.report/v1).
nlohmann::ordered_json ActiveRunJson(const DiagnosisInput& input);
// The "Measurements" section as aligned text tables (report_active_text.cpp).
std::string ActiveRunText(const DiagnosisInput& input, Lang lang);
// The same as Markdown tables, a marked cell in bold.
std::string ActiveRunMarkdown(const DiagnosisInput& input, Lang lang);
// The same as HTML tables, with each burned GPU's 100 ms charts of power,
// SM clock and temperature over its burn (report_html_active.cpp).
std::string ActiveRunHtml(const DiagnosisInput& input, Lang lang);

}  // namespace gpudoctor
