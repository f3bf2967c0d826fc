#include "agent/agent_events.h"

#include <iterator>

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

bool AgentEventSources::ReadsKernelLog() const {
  return follow_ && kernel_status_.rfind("not read", 0) != 0;
}

bool AgentEventSources::watching_nvml_xids() const {
  return xid_ && xid_->status().rfind("watching", 0) == 0;
}

std::vector<KernelEvent> AgentEventSources::Poll() {
  std::vector<KernelEvent> kernel = PollKernel();
  std::vector<KernelEvent> nvml;
  if (xid_) {
    for (const auto& x : xid_->Take()) nvml.push_back(XidEventToKernelEvent(x));
  }
  if (!ReadsKernelLog()) {
    // No kernel line can claim an NVML event (--no-kernel-log, or neither
    // /dev/kmsg nor the journal readable): recorded at once, not held for the
    // skew, so a short rules window still sees it.
    std::vector<KernelEvent> out = xid_paths_.Flush();
    out.insert(out.end(), std::make_move_iterator(nvml.begin()), std::make_move_iterator(nvml.end()));
    return out;
  }
  return xid_paths_.Add(std::move(kernel), std::move(nvml), std::chrono::system_clock::now());
}

std::vector<KernelEvent> GpuLossEvents(const SystemStatus& before, const SystemStatus& after,
                                       WallTime time) {
  std::vector<KernelEvent> out;
  if (!after.nvml_loaded) return out;
  auto event = [&](const GpuStatus& g, const std::string& why) {
    KernelEvent e;
    e.kind = KernelEventKind::kGpuLost;
    e.time = time;
    e.pci_bus_id = g.pci_bus_id;
    e.message = "GPU " + std::to_string(g.index) +
                (g.pci_bus_id.empty() ? "" : " (" + g.pci_bus_id + ")") + " " + why;
    e.detail = g.uuid;
    e.source = SourceRef{"nvml", 0};
    out.push_back(std::move(e));
  };
  auto state_of = [](const GpuStatus& g) {
    return std::string(GpuStateName(g.state)) +
           (g.state_detail.empty() ? "" : ": " + g.state_detail);
  };
  if (!before.nvml_loaded) {
    // The first reading: a GPU NVML counts that does not answer was lost
    // before the agent started, and is one from now on.
    for (const auto& g : after.gpus) {
      if (g.state != GpuState::kOk) event(g, "did not answer when first seen (" + state_of(g) + ")");
    }
    return out;
  }
  std::map<std::string, const GpuStatus*> now_by_bus;
  for (const auto& g : after.gpus) now_by_bus[g.pci_bus_id] = &g;
  for (const auto& was : before.gpus) {
    if (was.state != GpuState::kOk || was.pci_bus_id.empty()) continue;
    auto it = now_by_bus.find(was.pci_bus_id);
    if (it == now_by_bus.end()) {
      event(was, "no longer listed by NVML");
    } else if (it->second->state != GpuState::kOk) {
      event(was, state_of(*it->second));
    }
  }
  return out;
}

}  // namespace gpudoctor
