// What the agent serves over HTTP, as plain data: the counters and latest
// sample the agent fills after each sample (agent/http_snapshot.h builds and
// publishes it), read by the Prometheus renderer and the HTTP endpoint.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/gpu_status.h"
#include "core/kernel_event.h"
#include "facts/latch.h"
#include "facts/network.h"
#include "facts/timeline.h"
#include "rules/engine/finding.h"
#include "store/store.h"

namespace gpudoctor {

// Upper bounds (seconds) of the NVML sample latency histogram's buckets; the
// last bucket (+Inf) is implicit.
inline constexpr std::array<double, 9> kSampleLatencyBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025,
                                                                0.05,  0.1,    0.5,   1.0};

struct LatencyHistogram {
  std::array<std::uint64_t, kSampleLatencyBuckets.size()> cumulative{};  // count <= bound
  std::uint64_t count = 0;
  double sum_seconds = 0;
  void Observe(double latency_s);
};

// dcgm-exporter's default window for its DCGM_EXP_* counts
// (--xid-count-window-size, --clock-events-count-window-size).
inline constexpr std::chrono::milliseconds kDcgmExpWindow{300000};

// Identity of a GPU as the labels show it.
struct MetricGpuLabels {
  unsigned index = 0;
  std::string uuid;
  std::string pci_bus_id;
  std::string model;
};

struct GpuCounters {
  MetricGpuLabels labels;
  std::map<std::string, double> throttle_seconds_by_reason;  // ClockReasonNames
  std::map<int, std::uint64_t> xid_events_by_code;
  int last_xid = 0;  // the code of the latest Xid in this run; 0: none
  // dcgm-exporter's windowed counts (DCGM_EXP_XID_ERRORS_COUNT and
  // DCGM_EXP_CLOCK_EVENTS_COUNT) over the last kDcgmExpWindow: Xids by code,
  // and by clock event reason bit the samples that had it set.
  std::map<int, std::uint64_t> xids_in_window;
  std::map<std::uint64_t, std::uint64_t> clock_event_samples_in_window;
  Severity verdict = Severity::kOk;  // worst active finding naming this GPU
  // The strictest recovery action of those findings.
  RecoveryAction recommended = RecoveryAction::kNone;
  // NVML listed it in this run (answering or not), or it is on the PCI bus
  // without NVML listing it: it has a verdict series.
  bool seen = false;
};

struct AgentLiveSnapshot {
  WallTime published_at;
  WallTime started_at;
  std::optional<WallTime> last_sample_at;
  std::chrono::milliseconds interval{1000};
  SystemStatus status;                      // latest sample
  std::map<std::string, GpuCounters> gpus;  // by GpuKeyOf (bus id, or "index:N"), every GPU seen
  std::map<std::pair<std::string, int>, std::uint64_t> sxid_events;  // (switch bus id, code)
  std::vector<FindingInterval> active_findings;
  unsigned gpus_expected = 0;  // from the configuration; 0: not configured
  unsigned gpus_visible = 0;   // answering NVML in the latest sample
  // Lost, hung, not openable or gone now: every GPU NVML listed in this run
  // (also one that never answered) and every NVIDIA GPU on the PCI bus that
  // NVML does not list.
  unsigned gpus_lost = 0;
  LatencyHistogram sample_latency;
  std::uint64_t nvml_timeouts = 0;  // GPU samples abandoned as hung
  // Reboots in the store over the boot ledger's span (3 days).
  std::int64_t reboots_recorded = 0;
  // Findings latched for hardware inspection and not acknowledged.
  std::vector<LatchedFinding> latched;
  std::uint64_t samples_written = 0;
  std::uint64_t samples_failed = 0;
  double agent_cpu_seconds = 0;
  std::int64_t agent_resident_bytes = 0;
  StoreStats store;
  // The store was found damaged and moved aside, or its write-ahead log
  // was: one line, which /healthz names; empty when none.
  std::string store_damage;
  RdmaFacts rdma;  // the latest reading of the RDMA ports (the agent's 10 s schedule)
};

// The latest published snapshot, or null before the first; callable from any
// thread (the agent's SnapshotBox provides it).
using SnapshotSource = std::function<std::shared_ptr<const AgentLiveSnapshot>()>;

}  // namespace gpudoctor
