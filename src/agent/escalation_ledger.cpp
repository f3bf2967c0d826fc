#include "agent/escalation_ledger.h"

namespace gpudoctor {

Result<std::vector<LatchedFinding>> EscalationLedger::Record(const DiagnosisInput& input,
                                                             const Diagnosis& d,
                                                             const EscalationConfig& config,
                                                             WallTime now) {
  std::vector<LatchedFinding> latched;
  if (boot_id_.empty()) return latched;
  for (const Finding& f : d.findings) {
    for (const RecurringCause& cause : EscalatingCauses(f)) {
      const WallTime seen = f.last_evidence.value_or(now);
      if (boot_time_ && seen < *boot_time_) continue;
      for (const std::string& key : f.gpus) {
        const GpuIdentity id = IdentityOf(input, key);
        const std::string identity = id.uuid.empty() ? key : id.uuid;
        auto once = std::make_tuple(identity, cause.finding_id, cause.xid.value_or(0));
        if (recorded_.contains(once)) continue;
        const WallTime first =
            std::max(f.first_evidence.value_or(seen), boot_time_.value_or(WallTime{}));
        if (auto r = store_.RecordOccurrence(identity, key, cause, boot_id_, first); !r) {
          return r.error();
        }
        recorded_.insert(once);
        const int after = RebootsBeforeEscalation(config, cause);
        if (after == 0) continue;
        auto history = store_.Occurrences(identity, cause, now - config.window);
        if (!history) return history.error();
        const int boots = CountedBoots(*history, config.dedup);
        if (!Escalates(boots, after)) continue;
        LatchedFinding l;
        l.finding_id = cause.finding_id;
        l.xid = cause.xid;
        l.gpu = key;
        l.uuid = id.uuid;
        l.serial = id.serial;
        l.boots = boots;
        l.after_reboots = after;
        l.first_seen = history->front().time;
        l.since = now;
        l.title_en = f.title.en;
        l.title_zh = f.title.zh;
        auto made = store_.Latch(l);
        if (!made) return made.error();
        if (*made) latched.push_back(std::move(l));
      }
    }
  }
  return latched;
}

}  // namespace gpudoctor
