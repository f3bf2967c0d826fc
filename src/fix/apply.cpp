#include "fix/apply.h"

#include <algorithm>

namespace gpudoctor {
namespace {

AuditEntry EntryFor(const FixStep& step, const ApplyEnv& env) {
  AuditEntry e;
  e.time = env.now ? env.now() : std::chrono::system_clock::now();
  e.host = env.hostname;
  e.gpu_index = step.gpu_index;
  e.pci_bus_id = step.pci_bus_id;
  e.uuid = step.uuid;
  e.step = StepActionName(step.action);
  e.finding_id = step.finding_id;
  e.field = step.field;
  e.before = step.before;
  return e;
}

}  // namespace

const char* StepOutcomeName(StepOutcome outcome) {
  switch (outcome) {
    case StepOutcome::kApplied:
      return "applied";
    case StepOutcome::kFailed:
      return "failed";
    case StepOutcome::kSkipped:
      return "skipped";
    case StepOutcome::kNotRun:
      return "not_run";
    case StepOutcome::kManual:
      return "manual";
  }
  return "?";
}

std::vector<StepResult> ApplyPlan(const FixPlan& plan, const ApplyEnv& env) {
  std::vector<StepResult> results(plan.steps.size());
  bool stopped = false;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const FixStep& step = plan.steps[i];
    StepResult& r = results[i];
    if (!step.automatic) {
      r.outcome = StepOutcome::kManual;
      continue;
    }
    if (stopped) {
      r.outcome = StepOutcome::kNotRun;
      continue;
    }
    if (step.skipped) {
      r.outcome = StepOutcome::kSkipped;
      continue;
    }
    Status applied = env.control->Apply(step.pci_bus_id, step.setting);
    AuditEntry entry = EntryFor(step, env);
    if (applied) {
      r.outcome = StepOutcome::kApplied;
      entry.after = step.target;
      entry.result = "ok";
    } else {
      r.outcome = StepOutcome::kFailed;
      r.error = applied.error().message;
      entry.after = step.before;
      entry.result = "failed: " + r.error;
      stopped = true;
    }
    if (env.audit != nullptr) {
      if (auto recorded = env.audit->Record(entry); !recorded) {
        // A change we cannot record is not followed by more changes.
        if (r.error.empty()) r.error = recorded.error().message;
        stopped = true;
      }
    }
  }
  return results;
}

void CompareAfter(const FixPlan& plan, const std::vector<GpuStatus>& gpus_after,
                  const std::vector<Finding>& findings_after, std::vector<StepResult>& results) {
  for (std::size_t i = 0; i < plan.steps.size() && i < results.size(); ++i) {
    const FixStep& step = plan.steps[i];
    StepResult& r = results[i];
    if (!step.automatic) continue;
    for (const GpuStatus& g : gpus_after) {
      if (g.pci_bus_id == step.pci_bus_id) r.after = FieldValueText(step, g);
    }
    if (step.finding_id.empty()) continue;
    bool present = std::any_of(findings_after.begin(), findings_after.end(), [&](const Finding& f) {
      return f.id == step.finding_id &&
             std::find(f.gpus.begin(), f.gpus.end(), step.pci_bus_id) != f.gpus.end();
    });
    r.finding_gone = !present;
  }
}

bool AnyFailedOrSkipped(const std::vector<StepResult>& results) {
  return std::any_of(results.begin(), results.end(), [](const StepResult& r) {
    return r.outcome == StepOutcome::kFailed || r.outcome == StepOutcome::kSkipped ||
           r.outcome == StepOutcome::kNotRun || !r.error.empty();
  });
}

}  // namespace gpudoctor
