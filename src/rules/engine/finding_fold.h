// One finding per cause: when a rule found the same thing on several GPUs
// (the power brake on all eight, the same Xid on four), the per-GPU findings
// become one that names every GPU ("8 of 8 GPUs"), with each GPU's own title
// and evidence folded under it (Finding::per_gpu). Findings that differ in
// substance stay apart: same rule, severity and Xids, and the same title,
// explanation and actions once each GPU's own name is taken out of them.
//
// For what a person reads (diagnose, analyze, report). The agent keeps the
// per-GPU findings: its finding intervals are per GPU.
#pragma once

#include "facts/diagnosis_input.h"
#include "rules/engine/engine.h"

namespace gpudoctor {

// Folds d.findings in place; the verdict and the per-GPU verdicts (which
// already name every finding of each GPU) are unchanged.
void FoldAcrossGpus(Diagnosis& d, const DiagnosisInput& input);

}  // namespace gpudoctor
