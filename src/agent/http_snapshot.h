// Builds and publishes what the agent's HTTP endpoint serves (the plain data
// of render/agent_snapshot.h): an immutable snapshot the sampling thread
// publishes after each sample, so that a scrape only reads memory and never
// waits on the driver. SnapshotBuilder accumulates the counters (time
// throttled per reason, Xid and SXid counts, NVML latency) on the agent
// thread; SnapshotBox hands the latest snapshot to any number of readers.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "core/kernel_event.h"
#include "render/agent_snapshot.h"
#include "store/store.h"

namespace gpudoctor {

// The agent's own CPU time and resident memory from /proc/self.
struct SelfUsage {
  double cpu_seconds = 0;
  std::int64_t resident_bytes = 0;
};
SelfUsage ReadSelfUsage();

// Accumulates counters across samples. Agent thread only.
class SnapshotBuilder {
 public:
  SnapshotBuilder(WallTime started_at, std::chrono::milliseconds interval);
  void OnSample(const SystemStatus& status, WallTime at, double latency_seconds);
  void OnEvent(const KernelEvent& event);
  void OnFindings(std::vector<FindingInterval> active);
  // GPUs on the PCI bus that NVML does not list (or that no longer answer
  // there): counted lost (their gpu.dropped finding names them; without an
  // NVML index they have no per-GPU series).
  void OnDroppedGpus(std::vector<std::string> bus_ids);
  void OnStoreDamage(std::string note) { s_.store_damage = std::move(note); }
  void OnReboots(std::int64_t recorded) { s_.reboots_recorded = recorded; }
  void OnLatches(std::vector<LatchedFinding> latched) { s_.latched = std::move(latched); }
  void OnRdma(const RdmaFacts& rdma);
  // A copy of the current state with the given totals. The agent's own CPU
  // time and memory are read again when kSelfUsageEvery has passed since
  // the last read (getrusage walks every thread of the process).
  std::shared_ptr<const AgentLiveSnapshot> Build(unsigned gpus_expected, const StoreStats& store,
                                                 std::uint64_t samples_written,
                                                 std::uint64_t samples_failed);
  static constexpr std::chrono::seconds kSelfUsageEvery{5};

 private:
  GpuCounters& Counters(const std::string& key);  // GpuKeyOf: bus id or "index:N"
  AgentLiveSnapshot s_;
  SelfUsage self_;
  std::chrono::steady_clock::time_point self_due_{};
  std::map<std::string, WallTime> previous_sample_;  // by GPU key
  std::set<std::string> hung_;                        // keys of GPUs hung in the last sample
  std::vector<std::string> dropped_;                 // OnDroppedGpus
  // What the DCGM_EXP_* windows hold, by bus id: (time, Xid code, repeats)
  // and (time, clock event reasons mask) of the samples with any reason.
  struct WindowXid {
    WallTime at;
    int code;
    std::uint64_t repeats;
  };
  std::map<std::string, std::deque<WindowXid>> window_xids_;
  std::map<std::string, std::deque<std::pair<WallTime, std::uint64_t>>> window_clock_masks_;
  std::optional<WallTime> latest_;  // the latest sample's time
  void CountLost();
  void CountWindows(WallTime now);
};

// The latest snapshot; safe to use from any thread.
class SnapshotBox {
 public:
  void Publish(std::shared_ptr<const AgentLiveSnapshot> snapshot);
  std::shared_ptr<const AgentLiveSnapshot> Latest() const;
  // Latest() as the HTTP endpoint reads it; the box must outlive the source.
  SnapshotSource Source() const;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const AgentLiveSnapshot> latest_;
};

}  // namespace gpudoctor
