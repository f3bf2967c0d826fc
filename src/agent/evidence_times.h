// When the evidence of each finding was taken. The agent evaluates the rules
// over a sliding window every few seconds, so a finding stays in its
// diagnoses for up to a window after the last reading or event that showed
// it, and first appears up to an evaluation after its first one. Running the
// finding's rule again over shorter stretches of the window's newest part
// tells when it was last (and first) shown, whatever the rule judges
// (a reading, a share of readings, a counter's increase, an event). Pure.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"
#include "rules/engine/rule.h"

namespace gpudoctor {

// Sets Finding::last_evidence and, for the findings `wants_first` accepts,
// Finding::first_evidence, on `findings` (the diagnosis of `window`).
// Only the newest stretch of `window` is searched: its readings and events
// after `since`, and the last reading at or before `since` (a counter's
// increase needs the reading before it); nullopt `since`: all of it.
// last_evidence: the end of the shortest stretch that still shows the
// finding, taken from the shortest stretch ending at the window's end that
// shows it. first_evidence: likewise from the start of the searched stretch.
// A finding that no stretch shows (a rule that needs the whole window, or
// evidence older than `since`) is left unset. A finding is shown by a
// stretch when its rule finds the same id on an overlapping set of GPUs
// (both empty: host-wide). `rules` defaults to AllRules().
void StampEvidenceTimes(const DiagnosisInput& window, std::optional<WallTime> since,
                        std::vector<Finding>& findings,
                        const std::function<bool(const Finding&)>& wants_first,
                        const std::vector<const Rule*>* rules = nullptr);

}  // namespace gpudoctor
