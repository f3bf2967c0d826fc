// The recovery action gpudoctor recommends, written once:
//   - for an Xid, from NVIDIA's catalog (its immediate resolution bucket;
//     CONTACT_SUPPORT, a fault the GPU cannot recover from alone, starts with
//     a reboot);
//   - for every other rule, one row per rule: the action for its warnings and
//     for its critical findings (info findings need none). Rules not listed
//     recommend none: their own steps (a setting, a service, the storage)
//     are the remedy.
// `gpudoctor rules --actions` and docs/reference.md print this table. Pure.
#pragma once

#include <string_view>
#include <vector>

#include "core/recovery_action.h"
#include "core/severity.h"
#include "knowledge/xid_catalog.h"

namespace gpudoctor {

struct RuleRecoveryRow {
  std::string_view rule;  // rule id
  RecoveryAction at_warning = RecoveryAction::kNone;
  RecoveryAction at_critical = RecoveryAction::kNone;
};

// The rows, in rule-id order.
const std::vector<RuleRecoveryRow>& RuleRecoveryTable();

// The action for a finding of `rule` at `severity` (none for info and ok).
RecoveryAction RuleRecovery(std::string_view rule, Severity severity);

// The action for one occurrence of Xid `code`, from its catalog bucket.
RecoveryAction XidRecovery(int code);
RecoveryAction XidResolutionRecovery(XidResolution bucket);

}  // namespace gpudoctor
