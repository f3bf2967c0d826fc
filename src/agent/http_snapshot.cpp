#include "agent/http_snapshot.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "core/clock_reasons.h"
#include "core/gpu_key.h"

namespace gpudoctor {

SelfUsage ReadSelfUsage() {
  // A syscall and one small read, no streams.
  SelfUsage u;
  rusage r{};
  if (getrusage(RUSAGE_SELF, &r) == 0) {
    u.cpu_seconds = static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
                    static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
  }
  // /proc/self/statm: "size resident shared ..." in pages.
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[128];
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0) {
      buf[n] = '\0';
      long long size_pages = 0, resident_pages = 0;
      if (std::sscanf(buf, "%lld %lld", &size_pages, &resident_pages) == 2) {
        u.resident_bytes = resident_pages * static_cast<std::int64_t>(sysconf(_SC_PAGESIZE));
      }
    }
  }
  return u;
}

SnapshotBuilder::SnapshotBuilder(WallTime started_at, std::chrono::milliseconds interval) {
  s_.started_at = started_at;
  s_.interval = interval;
}

GpuCounters& SnapshotBuilder::Counters(const std::string& key) {
  GpuCounters& c = s_.gpus[key];
  if (!IsIndexKey(key)) c.labels.pci_bus_id = key;
  return c;
}

void SnapshotBuilder::OnSample(const SystemStatus& status, WallTime at, double latency_seconds) {
  s_.sample_latency.Observe(latency_seconds);
  // Without NVML nothing was sampled: /healthz must say so.
  if (status.nvml_loaded) s_.last_sample_at = at;
  s_.gpus_visible = 0;
  for (const auto& g : status.gpus) {
    // A GPU lost before it gave a bus id is known by its index ("index:N");
    // once it gives one, that is its name.
    const std::string key = GpuKeyOf(g);
    if (!g.pci_bus_id.empty()) s_.gpus.erase(GpuKeyOf("", g.index));
    GpuCounters& c = Counters(key);
    // A hung GPU is not called again, so it stays hung in every later
    // sample: one timeout when it hangs, not one per sample.
    if (g.state == GpuState::kHung) {
      if (hung_.insert(key).second) ++s_.nvml_timeouts;
    } else {
      hung_.erase(key);
    }
    // Listed by NVML: it has a verdict from the first sample, even when it
    // never answered (lost before the agent started).
    c.seen = true;
    c.labels.index = g.index;
    if (!g.uuid.empty()) c.labels.uuid = g.uuid;
    if (!g.name.empty()) c.labels.model = g.name;
    if (g.state != GpuState::kOk) continue;
    ++s_.gpus_visible;
    auto previous = previous_sample_.find(key);
    if (previous != previous_sample_.end() && g.clock_event_reasons_mask) {
      // A gap longer than two intervals (a stall) counts as two intervals:
      // nobody saw what the clocks did in between.
      const double dt = std::min(std::chrono::duration<double>(at - previous->second).count(),
                                 2 * std::chrono::duration<double>(s_.interval).count());
      for (const auto& reason : ClockReasonNames(*g.clock_event_reasons_mask)) {
        c.throttle_seconds_by_reason[reason] += std::max(0.0, dt);
      }
    }
    previous_sample_[key] = at;
    if (g.clock_event_reasons_mask.value_or(0) != 0) {
      window_clock_masks_[key].emplace_back(at, *g.clock_event_reasons_mask);
    }
  }
  s_.status = status;
  CountLost();
  CountWindows(at);
}

void SnapshotBuilder::CountWindows(WallTime now) {
  if (!latest_ || *latest_ < now) latest_ = now;
  const WallTime since = *latest_ - kDcgmExpWindow;
  for (auto& [bus, xids] : window_xids_) {
    while (!xids.empty() && xids.front().at <= since) xids.pop_front();
    GpuCounters& c = Counters(bus);
    c.xids_in_window.clear();
    for (const auto& x : xids) c.xids_in_window[x.code] += x.repeats;
  }
  for (auto& [bus, masks] : window_clock_masks_) {
    while (!masks.empty() && masks.front().first <= since) masks.pop_front();
    GpuCounters& c = Counters(bus);
    c.clock_event_samples_in_window.clear();
    for (const auto& [at, mask] : masks) {
      for (std::uint64_t bit = 1; bit != 0 && bit <= mask; bit <<= 1) {
        if ((mask & bit) != 0) ++c.clock_event_samples_in_window[bit];
      }
    }
  }
}

void SnapshotBuilder::CountLost() {
  s_.gpus_lost = 0;
  for (const auto& bus : dropped_) {
    auto it = s_.gpus.find(bus);
    if (!bus.empty() && (it == s_.gpus.end() || !it->second.seen)) ++s_.gpus_lost;
  }
  for (const auto& [bus, counters] : s_.gpus) {
    const bool ok = std::any_of(s_.status.gpus.begin(), s_.status.gpus.end(), [&](const GpuStatus& g) {
      return GpuKeyOf(g) == bus && g.state == GpuState::kOk;
    });
    if (counters.seen && !ok) {
      ++s_.gpus_lost;
      previous_sample_.erase(bus);
    }
  }
}

void SnapshotBuilder::OnDroppedGpus(std::vector<std::string> bus_ids) {
  dropped_ = std::move(bus_ids);
  CountLost();
}

void SnapshotBuilder::OnEvent(const KernelEvent& event) {
  if (!event.code) return;
  const auto repeats = static_cast<std::uint64_t>(std::max<std::size_t>(1, event.count));
  if (event.kind == KernelEventKind::kXid && !event.pci_bus_id.empty()) {
    GpuCounters& c = Counters(event.pci_bus_id);
    c.xid_events_by_code[*event.code] += repeats;
    c.last_xid = *event.code;
    // When it happened (its last repeat's time), else when it was read.
    const WallTime at = event.last_time.value_or(
        event.time.value_or(latest_.value_or(std::chrono::system_clock::now())));
    auto& xids = window_xids_[event.pci_bus_id];
    xids.push_back({at, *event.code, repeats});
    // Kernel log lines can arrive out of order; the window keeps time order.
    std::sort(xids.begin(), xids.end(),
              [](const WindowXid& a, const WindowXid& b) { return a.at < b.at; });
    CountWindows(latest_.value_or(at));
  } else if (event.kind == KernelEventKind::kSxid) {
    s_.sxid_events[{event.pci_bus_id, *event.code}] += repeats;
  }
}

void SnapshotBuilder::OnRdma(const RdmaFacts& rdma) { s_.rdma = rdma; }

void SnapshotBuilder::OnFindings(std::vector<FindingInterval> active) {
  for (auto& [bus, c] : s_.gpus) {
    c.verdict = Severity::kOk;
    c.recommended = RecoveryAction::kNone;
    for (const auto& f : active) {
      if (std::find(f.gpus.begin(), f.gpus.end(), bus) != f.gpus.end()) {
        c.verdict = std::max(c.verdict, f.severity);
        c.recommended = Stricter(c.recommended, f.recommended.value_or(RecoveryAction::kNone));
      }
    }
  }
  s_.active_findings = std::move(active);
}

std::shared_ptr<const AgentLiveSnapshot> SnapshotBuilder::Build(
    unsigned gpus_expected, const StoreStats& store, std::uint64_t samples_written,
    std::uint64_t samples_failed) {
  auto snapshot = std::make_shared<AgentLiveSnapshot>(s_);
  snapshot->published_at = std::chrono::system_clock::now();
  snapshot->gpus_expected = gpus_expected;
  snapshot->store = store;
  snapshot->samples_written = samples_written;
  snapshot->samples_failed = samples_failed;
  if (const auto now = std::chrono::steady_clock::now(); now >= self_due_) {
    self_ = ReadSelfUsage();
    self_due_ = now + kSelfUsageEvery;
  }
  snapshot->agent_cpu_seconds = self_.cpu_seconds;
  snapshot->agent_resident_bytes = self_.resident_bytes;
  return snapshot;
}

void SnapshotBox::Publish(std::shared_ptr<const AgentLiveSnapshot> snapshot) {
  std::lock_guard lock(mutex_);
  latest_ = std::move(snapshot);
}

std::shared_ptr<const AgentLiveSnapshot> SnapshotBox::Latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

SnapshotSource SnapshotBox::Source() const {
  return [this] { return Latest(); };
}

}  // namespace gpudoctor
