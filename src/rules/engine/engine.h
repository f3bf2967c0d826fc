// Runs the rules over one DiagnosisInput and orders what they found: the
// verdict, findings most severe first, and what could not be checked.
#pragma once

#include <string>
#include <vector>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"
#include "rules/engine/rule.h"

namespace gpudoctor {

struct GpuVerdict {
  std::string key;  // GpuSeries::key: the bus id, or "index:N"; findings name the GPU by it
  unsigned index = 0;
  std::string pci_bus_id;
  std::string uuid;
  std::string name;
  std::string state;  // "ok", "lost", "hung", "error" (NVML's view of the latest reading)
  Severity verdict = Severity::kOk;
  std::vector<std::string> finding_ids;  // the findings naming this GPU, most severe first
  // The strictest recovery action of those findings.
  RecoveryAction recommended = RecoveryAction::kNone;
};

struct Diagnosis {
  Severity verdict = Severity::kOk;  // worst finding; ok when none
  std::vector<Finding> findings;     // severity descending, then rule order
  std::vector<NotChecked> not_checked;
  std::vector<GpuVerdict> gpus;      // every GPU of the input, index order
  std::vector<std::string> rules_run;
  // The strictest recovery action of every finding.
  RecoveryAction recommended = RecoveryAction::kNone;
};

// Runs every rule whose needs the input meets; the others become not_checked
// with the reason the evidence is missing. A rule that throws (it should not)
// is reported as not checked with the exception's text instead of aborting.
Diagnosis Diagnose(const DiagnosisInput& input, const std::vector<const Rule*>& rules);
// With AllRules().
Diagnosis Diagnose(const DiagnosisInput& input);

// Each GPU's verdict and finding ids from d.findings as they stand (after a
// fold that removed or merged findings): the worst finding naming the GPU,
// and the ids of those naming it, most severe first.
void RecomputeGpuVerdicts(Diagnosis& d);

// Why `need` is not met by `input`, or an empty Text when it is.
Text MissingEvidence(const DiagnosisInput& input, unsigned need);

// 0 ok or info, 1 warning, 2 critical.
int ExitCodeFor(Severity verdict);

}  // namespace gpudoctor
