// Turns successive diagnoses into finding intervals: a finding (id + GPUs)
// starts when a diagnosis first reports it and ends when it has been absent
// from `clear_after` diagnoses in a row, so a finding that flickers at a
// threshold does not become a stream of one-evaluation intervals. Where the
// findings carry the times of their evidence (StampEvidenceTimes), an
// interval starts at its first evidence and ends at its last one instead of
// at the evaluations that saw it, which trail the evidence by up to the
// rules window. Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "facts/timeline.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

using FindingKey = std::pair<std::string, std::vector<std::string>>;  // id, gpus

struct FindingChanges {
  std::vector<FindingInterval> seen;  // started or still active (start = first seen)
  std::vector<FindingInterval> started;  // those of `seen` that began in this update
  std::vector<FindingInterval> cleared;  // end set
};

class FindingTracker {
 public:
  explicit FindingTracker(int clear_after = 2) : clear_after_(clear_after) {}

  // Findings of severity info and above are tracked; ok findings are not.
  FindingChanges Update(const std::vector<Finding>& findings, WallTime now);
  // Whether this finding (id + GPUs) has an open interval.
  bool IsOpen(const Finding& finding) const;
  // Intervals still open, by key.
  std::vector<FindingInterval> Active() const;
  // Ends every open interval at its last evidence, else where it was last
  // seen (the agent stops).
  std::vector<FindingInterval> CloseAll();

 private:
  struct Open {
    FindingInterval interval;
    WallTime last_seen;
    std::optional<WallTime> last_evidence;  // the latest a finding carried
    int misses = 0;
    WallTime End() const;
  };
  int clear_after_;
  std::map<FindingKey, Open> open_;
};

}  // namespace gpudoctor
