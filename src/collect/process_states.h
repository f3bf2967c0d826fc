// Processes stuck in uninterruptible sleep, and zombies, across checks of
// the process table. A task in D state for an instant is ordinary (a disk
// read); one that stays in D state through kStuckChecks consecutive checks
// with no context switch and no CPU time between them waits for something
// that does not answer: a file server, a disk, or a driver.
//
// diagnose takes five checks spread over its --duration; the agent one every
// kAgentProcessCheckEvery (or --evaluate-every when shorter). The tracker is pure; ReadProcessTicks (collect/
// top_processes.h) takes the checks and FillStuckDetails the command line
// and wait channel of the processes found stuck.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "collect/collect_context.h"
#include "collect/top_processes.h"
#include "facts/host.h"

namespace gpudoctor {

inline constexpr std::chrono::seconds kAgentProcessCheckEvery{15};

class StuckProcessTracker {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // One check of the process table (sorted by pid, as ReadProcessTicks gives).
  void Observe(const std::vector<ProcessTicks>& scan, TimePoint at);
  // A failed read of the process table: the count of consecutive checks
  // starts again.
  void Failed(const SourceStatus& why);

  // The processes stuck through at least kStuckChecks checks spanning at
  // least `min_stuck_s` (checks taken back to back, as when a diagnosis is
  // interrupted, prove nothing), the zombies of the last check and its
  // largest zombie parents.
  ProcessStateFacts Facts(double min_stuck_s = 0) const;

 private:
  struct Blocked {
    ProcessTicks last;
    unsigned checks = 0;
    TimePoint since;
    TimePoint seen;
  };
  std::map<std::pair<int, std::uint64_t>, Blocked> blocked_;  // (pid, start time)
  unsigned checks_ = 0;
  std::optional<std::uint64_t> zombies_;
  std::vector<ZombieParent> zombie_parents_;
  std::vector<SourceStatus> sources_;
};

// Adds the command line and wait channel (/proc/<pid>/wchan; empty when the
// kernel hides it) of each stuck process.
void FillStuckDetails(const CollectContext& ctx, ProcessStateFacts& facts);

}  // namespace gpudoctor
