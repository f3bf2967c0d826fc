#include "agent/agent_events.h"

#include "collect/journal.h"
#include "collect/pci_devices.h"
#include "parse/kernel_events.h"

namespace gpudoctor {

AgentEventSources::AgentEventSources(CollectContext ctx, bool follow_kernel_log, bool watch_nvml,
                                     const std::string& nvml_library,
                                     std::optional<double> resume_monotonic_s)
    : ctx_(std::move(ctx)), follow_(follow_kernel_log), last_mono_(resume_monotonic_s) {
  journal_from_ = std::chrono::system_clock::now();
  if (follow_) {
    kmsg_ = std::make_unique<KmsgFollower>(ctx_);
    extract_.aer_owner = AerOwnerOfBus(ReadPciDevices(ctx_));
  }
  if (watch_nvml) xid_ = NvmlXidWatcher::Start(nvml_library);
}

std::string AgentEventSources::xid_status() const {
  return xid_ ? xid_->status() : std::string("not watched");
}

std::vector<KernelEvent> AgentEventSources::PollKernel() {
  if (!follow_) return {};
  if (use_journal_) return PollJournal();
  KmsgBatch batch = kmsg_->Poll();
  if (!batch.status.available) {
    // /dev/kmsg is not readable (no CAP_SYSLOG, a container): the journal
    // has the same kernel lines.
    use_journal_ = true;
    kernel_status_ = "journal (/dev/kmsg: " + batch.status.why + ")";
    return PollJournal();
  }
  kernel_status_ = "/dev/kmsg";
  std::vector<LogLine> fresh;
  for (auto& line : batch.lines) {
    if (line.monotonic_s && last_mono_ && *line.monotonic_s <= *last_mono_) continue;
    if (line.monotonic_s) last_mono_ = line.monotonic_s;
    fresh.push_back(std::move(line));
  }
  if (fresh.empty()) return {};
  return ExtractKernelEvents(fresh, extract_);
}

std::vector<KernelEvent> AgentEventSources::PollJournal() {
  const WallTime now = std::chrono::system_clock::now();
  CollectContext c = ctx_;
  c.now = now;
  // Overlap the previous poll by a few seconds; lines seen then are skipped.
  c.since = std::chrono::duration_cast<std::chrono::milliseconds>(now - journal_from_) +
            std::chrono::seconds(5);
  JournalBatch batch = ReadJournalKernel(c, 100000);
  if (!batch.status.available) {
    kernel_status_ = "not read (" + batch.status.why + ")";
    return {};
  }
  kernel_status_ = "journal";
  journal_from_ = now;
  std::set<std::string> seen;
  std::vector<LogLine> fresh;
  for (auto& line : batch.lines) {
    std::string key = std::to_string(line.time ? line.time->time_since_epoch().count() : 0) +
                      "|" + line.text;
    seen.insert(key);
    if (journal_seen_.count(key) != 0) continue;
    fresh.push_back(std::move(line));
  }
  journal_seen_ = std::move(seen);
  if (fresh.empty()) return {};
  return ExtractKernelEvents(fresh, extract_);
}

std::vector<KernelEvent> AgentEventSources::Poll() {
  std::vector<KernelEvent> events = PollKernel();
  if (xid_) {
    for (const auto& x : xid_->Take()) events.push_back(XidEventToKernelEvent(x));
  }
  return events;
}

std::vector<KernelEvent> GpuLossEvents(const SystemStatus& before, const SystemStatus& after,
                                       WallTime time) {
  std::vector<KernelEvent> out;
  if (!before.nvml_loaded) return out;
  std::map<std::string, const GpuStatus*> now_by_bus;
  for (const auto& g : after.gpus) now_by_bus[g.pci_bus_id] = &g;
  for (const auto& was : before.gpus) {
    if (was.state != GpuState::kOk || was.pci_bus_id.empty()) continue;
    auto it = now_by_bus.find(was.pci_bus_id);
    std::string why;
    if (!after.nvml_loaded) {
      continue;  // the driver went away: one nvml error, not a loss per GPU
    } else if (it == now_by_bus.end()) {
      why = "no longer listed by NVML";
    } else if (it->second->state != GpuState::kOk) {
      why = std::string(GpuStateName(it->second->state)) +
            (it->second->state_detail.empty() ? "" : ": " + it->second->state_detail);
    } else {
      continue;
    }
    KernelEvent e;
    e.kind = KernelEventKind::kGpuLost;
    e.time = time;
    e.pci_bus_id = was.pci_bus_id;
    e.message = "GPU " + std::to_string(was.index) + " (" + was.pci_bus_id + ") " + why;
    e.detail = was.uuid;
    e.source = SourceRef{"nvml", 0};
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace gpudoctor
