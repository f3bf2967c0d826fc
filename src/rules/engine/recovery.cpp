#include "rules/engine/recovery.h"

#include <algorithm>

#include "knowledge/recovery_policy.h"

namespace gpudoctor {

std::optional<RecoveryAction> DriverRecovery(const DiagnosisInput& input, const std::string& key) {
  const GpuSeries* series = FindGpu(input, key);
  if (series == nullptr || series->readings.empty()) return std::nullopt;
  const auto& code = series->latest().recovery_action;
  if (!code) return std::nullopt;
  return FromNvmlRecoveryAction(*code);
}

void AssignRecovery(Finding& f, const DiagnosisInput& input) {
  if (!f.recommended) {
    RecoveryAction action = RuleRecovery(f.id, f.severity);
    if (f.severity == Severity::kWarning || f.severity == Severity::kCritical) {
      for (int code : f.xids) action = Stricter(action, XidRecovery(code));
    }
    f.recommended = action;
  }
  // The driver knows the GPU's state better than any catalog; an info
  // finding (a recovered GPU, an application fault) is not raised by it.
  if (f.severity == Severity::kWarning || f.severity == Severity::kCritical) {
    for (const std::string& gpu : f.gpus) {
      auto driver = DriverRecovery(input, gpu);
      if (driver && Stricter(*f.recommended, *driver) != *f.recommended) {
        f.recommended = *driver;
        f.recommended_by_driver = true;
      }
    }
  }
  const bool cloud = input.versions && input.versions->stack.virtual_machine.value_or(false);
  if (cloud && f.recommended == RecoveryAction::kHardwareInspection) {
    f.recommended = RecoveryAction::kContactProvider;
  }
}

RecoveryAction StrictestRecovery(const Diagnosis& d, const std::string& key) {
  RecoveryAction out = RecoveryAction::kNone;
  for (const Finding& f : d.findings) {
    if (!key.empty() && std::find(f.gpus.begin(), f.gpus.end(), key) == f.gpus.end()) continue;
    out = Stricter(out, f.recommended.value_or(RecoveryAction::kNone));
  }
  return out;
}

}  // namespace gpudoctor
