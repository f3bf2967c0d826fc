// The fix plan and, after --apply, what became of each step, for people (en
// or zh) and as JSON (schema gpudoctor.fix/v1). Pure: renderers take plain
// structs.
#pragma once

#include <string>
#include <vector>

#include "fix/apply.h"
#include "fix/plan.h"

namespace gpudoctor {

struct FixView {
  const FixPlan* plan = nullptr;
  // Null: the plan only (nothing applied). Else one result per step.
  const std::vector<StepResult>* results = nullptr;
  Lang lang = Lang::kEn;
  std::string report_file;  // --from-report FILE; empty: a live diagnosis
  std::string audit_log;    // path, when changes were recorded
};

std::string FixToText(const FixView& view);
std::string FixToJson(const FixView& view);

}  // namespace gpudoctor
