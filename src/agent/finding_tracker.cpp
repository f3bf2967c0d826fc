#include "agent/finding_tracker.h"

#include <algorithm>
#include <set>

namespace gpudoctor {

FindingChanges FindingTracker::Update(const std::vector<Finding>& findings, WallTime now) {
  FindingChanges changes;
  std::set<FindingKey> present;
  for (const Finding& f : findings) {
    if (f.severity == Severity::kOk) continue;
    FindingKey key{f.id, f.gpus};
    if (!present.insert(key).second) continue;
    auto [it, inserted] = open_.try_emplace(key);
    Open& o = it->second;
    if (inserted) {
      o.interval.finding_id = f.id;
      o.interval.gpus = f.gpus;
      // Not after `now`: an evidence time from a clock step must not make
      // an interval that starts in the future.
      o.interval.start = std::min(f.first_evidence.value_or(now), now);
      o.interval.severity = f.severity;
    } else if (f.severity > o.interval.severity) {
      o.interval.severity = f.severity;
    }
    if (f.recommended) o.interval.recommended = Stricter(o.interval.recommended, *f.recommended);
    o.interval.title = f.title;
    o.last_seen = now;
    if (f.last_evidence && (!o.last_evidence || *f.last_evidence > *o.last_evidence)) {
      o.last_evidence = f.last_evidence;
    }
    o.misses = 0;
    changes.seen.push_back(o.interval);
    if (inserted) changes.started.push_back(o.interval);
  }
  for (auto it = open_.begin(); it != open_.end();) {
    if (present.count(it->first) != 0 || ++it->second.misses < clear_after_) {
      ++it;
      continue;
    }
    // Ends at its last evidence, else where it was last seen: the
    // evaluations after it only confirmed that it was gone.
    FindingInterval done = it->second.interval;
    done.end = it->second.End();
    changes.cleared.push_back(std::move(done));
    it = open_.erase(it);
  }
  return changes;
}

bool FindingTracker::IsOpen(const Finding& finding) const {
  return open_.count(FindingKey{finding.id, finding.gpus}) != 0;
}

WallTime FindingTracker::Open::End() const {
  // Never before the start, even when the wall clock stepped back (NTP at
  // boot) and the last evaluation's time is earlier than the start.
  const WallTime latest = std::max(last_seen, interval.start);
  if (!last_evidence) return latest;
  return std::clamp(*last_evidence, interval.start, latest);
}

std::vector<FindingInterval> FindingTracker::Active() const {
  std::vector<FindingInterval> out;
  for (const auto& [key, o] : open_) out.push_back(o.interval);
  return out;
}

std::vector<FindingInterval> FindingTracker::CloseAll() {
  std::vector<FindingInterval> out;
  for (auto& [key, o] : open_) {
    out.push_back(o.interval);
    out.back().end = o.End();
  }
  open_.clear();
  return out;
}

}  // namespace gpudoctor
