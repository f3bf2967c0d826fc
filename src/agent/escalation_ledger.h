// The agent's side of escalation (agent/escalation.h): after each
// evaluation, records in the store which causes were seen on which GPU during
// this boot (once per boot), and latches those that came back after the
// configured number of reboots. Evidence from before this boot started (a
// log replayed after a reboot) was that boot's and is not counted again.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "agent/escalation.h"
#include "rules/engine/engine.h"
#include "store/store.h"

namespace gpudoctor {

class EscalationLedger {
 public:
  // An empty boot_id (no /proc/sys/kernel/random/boot_id) records nothing:
  // boots cannot be told apart.
  EscalationLedger(Store& store, std::string boot_id, std::optional<WallTime> boot_time)
      : store_(store), boot_id_(std::move(boot_id)), boot_time_(boot_time) {}

  // Returns the latches made now (empty: nothing new), or the store's error.
  Result<std::vector<LatchedFinding>> Record(const DiagnosisInput& input, const Diagnosis& d,
                                             const EscalationConfig& config, WallTime now);

 private:
  Store& store_;
  std::string boot_id_;
  std::optional<WallTime> boot_time_;
  // (identity, finding id, xid) recorded during this boot already.
  std::set<std::tuple<std::string, std::string, int>> recorded_;
};

}  // namespace gpudoctor
