// When a fault that a reboot (or a GPU reset) should fix comes back on the
// same physical GPU after N reboots, rebooting again will not help: the
// agent latches it for hardware inspection (facts/latch.h, rule
// gpu.needs_inspection). What counts: the boots in which the same cause
// (finding id, and Xid code for Xid findings) was seen on the same GPU
// (UUID, not index or bus id: a replaced board starts afresh), within the
// configured window and since its last acknowledgement; repeats closer than
// the dedup window count once, even across a reboot. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/kernel_event.h"
#include "facts/diagnosis_input.h"
#include "facts/latch.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// The causes a finding counts toward escalation: one per Xid it names, else
// the finding itself; none when its action is not one a reboot or reset is
// meant to fix (reset_gpu, drain_and_reset, reboot_node), when it is below
// warning, or when it is gpu.needs_inspection itself.
std::vector<RecurringCause> EscalatingCauses(const Finding& f);

// The reboots after which `cause` escalates (0: never): the Xid's own
// threshold from the config, else the default.
int RebootsBeforeEscalation(const EscalationConfig& config, const RecurringCause& cause);

// The boots the occurrences count for: each boot once, in time order, and an
// occurrence closer than `dedup` to the last counted one not at all.
int CountedBoots(std::vector<Occurrence> history, std::chrono::milliseconds dedup);

// Whether `counted_boots` crossed `after_reboots` (seen again after that
// many reboots: in after_reboots + 1 boots). Never for 0.
bool Escalates(int counted_boots, int after_reboots);

// The physical GPU behind a series: the UUID and serial of its latest
// reading that has one ("" when none did).
struct GpuIdentity {
  std::string uuid;
  std::string serial;
};
GpuIdentity IdentityOf(const DiagnosisInput& input, const std::string& key);

}  // namespace gpudoctor
