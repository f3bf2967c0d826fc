// How serious a finding is (ok, info, warning, critical), with its name in
// output and configuration files. Findings, the recorded timeline and the
// exit codes use it.
#pragma once

#include <optional>
#include <string_view>

namespace gpudoctor {

enum class Severity { kOk, kInfo, kWarning, kCritical };

// "ok", "info", "warning", "critical".
const char* SeverityName(Severity severity);
std::optional<Severity> ParseSeverity(std::string_view name);

}  // namespace gpudoctor
