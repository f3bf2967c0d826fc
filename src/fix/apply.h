// Applying a fix plan: the automatic steps, in order, through a
// GpuController; each change recorded in the audit log. A failing step stops
// the run: the later steps are not applied. Then, from a diagnosis made
// afterwards, the value each step's setting has now and whether its finding
// is gone.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_event.h"
#include "fix/audit_log.h"
#include "fix/plan.h"
#include "nvml/nvml_control.h"

namespace gpudoctor {

enum class StepOutcome {
  kApplied,
  kFailed,
  kSkipped,  // a GPU with compute processes (no --force), or lost
  kNotRun,   // an earlier step failed
  kManual,   // printed only: to do by hand
};

// "applied", "failed", "skipped", "not_run", "manual".
const char* StepOutcomeName(StepOutcome outcome);

struct StepResult {
  StepOutcome outcome = StepOutcome::kManual;
  std::string error;  // kFailed: the setter's error; kApplied: an audit log failure
  // Filled by CompareAfter: the setting's value after, as text, and whether
  // the step's finding is gone from the later diagnosis.
  std::string after;
  std::optional<bool> finding_gone;
};

struct ApplyEnv {
  GpuController* control = nullptr;
  AuditSink* audit = nullptr;
  std::string hostname;
  std::function<WallTime()> now;
};

// One result per plan step, same order. Never throws.
std::vector<StepResult> ApplyPlan(const FixPlan& plan, const ApplyEnv& env);

// Fills `after` and `finding_gone` from the GPUs and findings of a diagnosis
// made after applying.
void CompareAfter(const FixPlan& plan, const std::vector<GpuStatus>& gpus_after,
                  const std::vector<Finding>& findings_after, std::vector<StepResult>& results);

// True when some step failed or was skipped (fix then exits 1).
bool AnyFailedOrSkipped(const std::vector<StepResult>& results);

}  // namespace gpudoctor
