// The boots of the node as the agent sees them: at its start, a boot_id
// other than the one its previous run wrote in agent-state.json means the
// node rebooted in between. The reboot goes into the store as an event at
// the boot's time (the report's timeline shows it; the findings the agent
// left open ended at its last sample before it), with what is known of why:
// a crash record kept in pstore. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/kernel_event.h"

namespace gpudoctor {

struct BootChange {
  std::string previous_boot_id;            // from the previous run's state; empty: unknown
  std::string boot_id;                     // /proc/sys/kernel/random/boot_id now
  std::optional<WallTime> boot_time;       // /proc/stat btime
  std::optional<WallTime> last_sample;     // the store's newest sample (the previous boot's last)
  std::vector<std::string> crash_records;  // pstore records of the previous boot
};

// The reboot event, or nullopt when the boot did not change (or either
// boot_id is unknown: the first run, a host without the file).
std::optional<KernelEvent> RebootEvent(const BootChange& change, WallTime now);

// How long a reboot counts (gpud keeps its reboot ledger 3 days).
inline constexpr std::chrono::hours kRebootLedgerSpan{72};

}  // namespace gpudoctor
