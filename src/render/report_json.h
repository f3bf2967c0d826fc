// The gpudoctor.report/v1 JSON document (see README "JSON report").
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "render/report.h"

namespace gpudoctor {

nlohmann::ordered_json FindingToJson(const Finding& finding, Lang lang);
nlohmann::ordered_json ReportToJson(const ReportContext& report);

}  // namespace gpudoctor
