#include "agent/boot_ledger.h"

#include "core/time_format.h"

namespace gpudoctor {

std::optional<KernelEvent> RebootEvent(const BootChange& change, WallTime now) {
  if (change.previous_boot_id.empty() || change.boot_id.empty()) return std::nullopt;
  if (change.previous_boot_id == change.boot_id) return std::nullopt;
  KernelEvent e;
  e.kind = KernelEventKind::kReboot;
  // Not before the previous boot's last sample (a clock stepped back at
  // boot) and not in the future.
  WallTime at = change.boot_time.value_or(now);
  if (change.last_sample && at < *change.last_sample) at = *change.last_sample;
  if (at > now) at = now;
  e.time = at;
  e.source = SourceRef{"agent", 0};
  e.detail = change.boot_id;
  e.message = "the node booted again (boot_id " + change.boot_id + ", previous " +
              change.previous_boot_id + ")";
  if (change.last_sample)
    e.message += "; the previous boot's last sample at " + FormatRfc3339(*change.last_sample);
  if (!change.crash_records.empty()) {
    e.message += "; the previous boot left a crash record: " + change.crash_records.front();
    if (change.crash_records.size() > 1) {
      e.message += " (+" + std::to_string(change.crash_records.size() - 1) + " more)";
    }
  }
  return e;
}

}  // namespace gpudoctor
