#include "agent/escalation.h"

#include <algorithm>
#include <set>

namespace gpudoctor {

std::vector<RecurringCause> EscalatingCauses(const Finding& f) {
  if (f.id == "gpu.needs_inspection" || f.severity < Severity::kWarning || !f.recommended) {
    return {};
  }
  const RecoveryAction a = *f.recommended;
  if (a != RecoveryAction::kResetGpu && a != RecoveryAction::kDrainAndReset &&
      a != RecoveryAction::kRebootNode) {
    return {};
  }
  if (f.xids.empty()) return {RecurringCause{f.id, std::nullopt}};
  std::vector<RecurringCause> out;
  for (int xid : f.xids) out.push_back(RecurringCause{f.id, xid});
  return out;
}

int RebootsBeforeEscalation(const EscalationConfig& config, const RecurringCause& cause) {
  if (cause.xid) {
    if (auto it = config.xid_after_reboots.find(*cause.xid); it != config.xid_after_reboots.end()) {
      return it->second;
    }
  }
  return config.after_reboots;
}

int CountedBoots(std::vector<Occurrence> history, std::chrono::milliseconds dedup) {
  std::stable_sort(history.begin(), history.end(),
                   [](const Occurrence& a, const Occurrence& b) { return a.time < b.time; });
  std::set<std::string> boots;
  std::optional<WallTime> last_counted;
  for (const Occurrence& o : history) {
    if (boots.contains(o.boot_id)) continue;
    if (last_counted && o.time - *last_counted < dedup) continue;
    boots.insert(o.boot_id);
    last_counted = o.time;
  }
  return static_cast<int>(boots.size());
}

bool Escalates(int counted_boots, int after_reboots) {
  return after_reboots > 0 && counted_boots > after_reboots;
}

GpuIdentity IdentityOf(const DiagnosisInput& input, const std::string& key) {
  GpuIdentity id;
  const GpuSeries* series = FindGpu(input, key);
  if (series == nullptr) return id;
  for (std::size_t i = series->readings.size(); i-- > 0;) {
    const GpuStatus& r = series->readings[i];
    if (id.uuid.empty() && !r.uuid.empty()) id.uuid = r.uuid;
    if (id.serial.empty() && r.serial && !r.serial->empty()) id.serial = *r.serial;
    if (!id.uuid.empty() && !id.serial.empty()) break;
  }
  return id;
}

}  // namespace gpudoctor
