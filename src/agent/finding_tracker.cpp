#include "agent/finding_tracker.h"

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
      o.interval.start = now;
      o.interval.severity = f.severity;
    } else if (f.severity > o.interval.severity) {
      o.interval.severity = f.severity;
    }
    o.interval.title = f.title;
    o.last_seen = now;
    o.misses = 0;
    changes.seen.push_back(o.interval);
  }
  for (auto it = open_.begin(); it != open_.end();) {
    if (present.count(it->first) != 0 || ++it->second.misses < clear_after_) {
      ++it;
      continue;
    }
    // Ends where it was last seen: the evaluations after it only confirmed
    // that it was gone.
    FindingInterval done = it->second.interval;
    done.end = it->second.last_seen;
    changes.cleared.push_back(std::move(done));
    it = open_.erase(it);
  }
  return changes;
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
    out.back().end = o.last_seen;
  }
  open_.clear();
  return out;
}

}  // namespace gpudoctor
