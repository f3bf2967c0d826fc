// What a rule concludes: a Finding with its evidence and ordered actions, in
// English and Chinese at once (the renderer picks the language), and the
// NotChecked entries for what a rule could not judge and why. Severity and
// Text are core types (core/severity.h, core/text.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_event.h"
#include "core/recovery_action.h"
#include "core/severity.h"
#include "core/text.h"

namespace gpudoctor {

// One piece of evidence: a measured number with its unit, or a log line with
// the file and line it came from (or both).
struct EvidenceItem {
  Text text;                         // "temperature max 91 °C over 10 s (threshold 85 °C)"
  std::optional<double> value;       // 91
  std::string unit;                  // "celsius", "watts", "percent", "count", ...
  std::optional<SourceRef> source;   // the log line, when the evidence is one
  std::optional<WallTime> time;      // when it happened, when known
};

// One step of the remedy, in the order to try them.
struct Action {
  Text text;
  std::string command;  // the command to type, when there is one; never run by diagnose
};

// One GPU's share of a finding that several GPUs have in common (see
// FoldAcrossGpus): what the rule said of that GPU alone.
struct GpuShare {
  std::string gpu;    // pci bus id
  std::string label;  // how the rule named it: "GPU 3 (0000:3b:00.0)"
  Text title;         // the rule's title for this GPU alone
  std::vector<EvidenceItem> evidence;
};

struct Finding {
  std::string id;        // the rule's id, e.g. "thermal.slowdown"
  std::string category;  // the rule's category, e.g. "thermal"
  Severity severity = Severity::kInfo;
  std::vector<std::string> gpus;  // pci bus ids "0000:3b:00.0"; empty: host-wide
  Text title;                     // one line
  Text explanation;               // a few sentences: what it means, why we think so
  std::vector<EvidenceItem> evidence;
  std::vector<Action> actions;
  // What it takes to bring the GPU or node back (core/recovery_action.h).
  // A rule sets it where it knows better than the policy (an Xid 154's
  // stated action); the engine fills the rest (AssignRecovery,
  // rules/engine/recovery.h) and raises it to the driver's own request.
  std::optional<RecoveryAction> recommended;
  // The driver's request (NVML field 230) set it.
  bool recommended_by_driver = false;
  std::vector<int> xids;  // Xid codes involved, ascending, unique
  // Set when the same cause on several GPUs was folded into this one
  // finding: one share per GPU, in the order of `gpus`; `evidence` then
  // holds all of theirs, in the same order.
  std::vector<GpuShare> per_gpu;
  // What this finding is a symptom of, where other rules may see the same
  // cause (FoldCauses, rules/engine/cause_fold.h). The first key is its own
  // cause ("pcie 0000:3b:00.0": that GPU's PCIe path; "p2p 0000:01:00.0
  // 0000:02:00.0": that GPU pair); later keys are causes which, when another
  // finding has one as its own, explain this one too. Empty: none shared.
  std::vector<std::string> causes;
  // When the readings or events that show it were taken, where known: the
  // agent stamps them (StampEvidenceTimes, agent/evidence_times.h) so that a
  // finding's interval runs from its first to its last evidence rather than
  // from the evaluation that first saw it to the one whose sliding window no
  // longer held it. nullopt: not known (rules leave them unset).
  std::optional<WallTime> first_evidence;
  std::optional<WallTime> last_evidence;
};

struct NotChecked {
  std::string rule;  // rule id
  Text reason;       // "no kernel log in the given files", "no NVSwitch on this system"
};

}  // namespace gpudoctor
