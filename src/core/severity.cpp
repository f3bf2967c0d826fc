#include "core/severity.h"

namespace gpudoctor {

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kOk: return "ok";
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kCritical: return "critical";
  }
  return "ok";
}

std::optional<Severity> ParseSeverity(std::string_view name) {
  for (Severity s : {Severity::kOk, Severity::kInfo, Severity::kWarning, Severity::kCritical}) {
    if (name == SeverityName(s)) return s;
  }
  return std::nullopt;
}

}  // namespace gpudoctor
