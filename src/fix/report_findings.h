// The findings of a JSON report (schema gpudoctor.report/v1, as written by
// `gpudoctor diagnose --format json`), for `fix --from-report`. Only what the
// plan needs is read: id, severity, gpus and title (in the report's
// language, copied to both languages).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// Pure. Errors (kCorrupt) are one line naming `name` and what is wrong.
Result<std::vector<Finding>> ParseReportFindings(std::string_view text, const std::string& name);

// Reads the file (at most 64 MiB) and parses it. Errors name the file.
Result<std::vector<Finding>> ReadReportFindings(const std::string& path);

}  // namespace gpudoctor
