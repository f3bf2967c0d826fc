// The one way from a window of facts to a diagnosis, under every front-end
// (diagnose, analyze, stress, the agent, report, report --prometheus, fleet,
// status and watch): the facts cut to the window, one series per GPU, the
// --gpu view, the rules, the per-GPU and node verdicts, and the findings
// folded across GPUs for a reader.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "facts/diagnosis_input.h"
#include "rules/engine/engine.h"
#include "rules/engine/rule.h"
#include "window/window.h"

namespace gpudoctor {

struct DiagnosisRequest {
  std::optional<Window> window;   // cut the facts to it first (window/cut.h)
  std::vector<std::string> gpus;  // --gpu selectors (index, bus id, UUID); empty: all
  // How errors name the option and the place ("--gpu", "no such GPU " +
  // where): "gpu" for the agent's HTTP query; "recorded in this window".
  std::string gpu_option = "--gpu";
  std::string where = "in this window";
  const std::vector<const Rule*>* rules = nullptr;  // AllRules() when null
  // One finding per cause, across rules (rules/engine/cause_fold.h) and
  // over several GPUs (rules/engine/finding_fold.h), for what a person reads. The agent keeps per-GPU findings: its finding
  // intervals are per GPU.
  bool fold_across_gpus = true;
};

// Diagnoses `facts`, which it leaves as the diagnosis saw them (cut, merged,
// viewed): renderers show them beside it. kInvalid, one line naming the
// selector, when a --gpu selector names no GPU of the window.
Result<Diagnosis> DiagnoseWindow(DiagnosisInput& facts, const DiagnosisRequest& request);

// One series per GPU: a GPU recorded only by its index ("index:N", lost
// before it gave a bus id) joins the one series of the window with a bus id
// whose readings give that index, and a series joins another with the same
// UUID, when their readings do not overlap in time (the same GPU before and
// after an agent restart, or named differently by two sources). Events
// that named the joined series name the GPU's key.
void MergeGpuIdentities(DiagnosisInput& facts);

// The --gpu view: only the GPUs the selectors name (in the selectors'
// order), and the kernel events that name no GPU (host-wide) or a kept GPU.
Status ViewGpus(DiagnosisInput& facts, const DiagnosisRequest& request);

}  // namespace gpudoctor
