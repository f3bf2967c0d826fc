// The recovery action of every finding (core/recovery_action.h): the rule's
// own where it set one, else the policy (knowledge/recovery_policy.h: the Xid
// catalog for the Xids it names, the rule's row); then raised to what the
// driver itself asks for one of its GPUs (NVML field 230) when that is
// stricter; on a cloud instance, a hardware fault is the provider's to fix.
#pragma once

#include <string>

#include "facts/diagnosis_input.h"
#include "rules/engine/engine.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

void AssignRecovery(Finding& f, const DiagnosisInput& input);

// The driver's request for the GPU `key` (its latest reading), when it has
// one this build knows.
std::optional<RecoveryAction> DriverRecovery(const DiagnosisInput& input, const std::string& key);

// The strictest action among the findings naming GPU `key` (empty: every
// finding, the node's).
RecoveryAction StrictestRecovery(const Diagnosis& d, const std::string& key = {});

}  // namespace gpudoctor
