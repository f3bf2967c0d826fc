// One cause, one finding, across rules: the symptoms several rules see of
// one cause (a slow PCIe link is a straggler in both directions, below its
// link and a weak peer pair) become one finding. Findings are of one cause
// when they name the same key (Finding::causes): its own first key, or a
// later key that another finding has as its own (a pair copied through the
// host joins the finding about either GPU's PCIe path).
//
// The first finding in the diagnosis' order (most severe, then rule order)
// whose own cause it is speaks for it: its id, title, explanation and
// actions; the others' titles and evidence follow its evidence, their
// actions after its own (repeats left out); it names the GPUs of the
// findings whose own cause it is (not the peer of a pair copied through
// another GPU's slow link), at the place of the cause's first finding, with
// the worst severity among them. Run before FoldAcrossGpus.
#pragma once

#include "rules/engine/engine.h"

namespace gpudoctor {

// Folds d.findings in place and brings the per-GPU verdicts in line
// (RecomputeGpuVerdicts).
void FoldCauses(Diagnosis& d);

}  // namespace gpudoctor
