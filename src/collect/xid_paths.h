// One Xid, two paths: the kernel log's "NVRM: Xid" line and NVML's event set
// (nvmlEventTypeXidCriticalError) report the same fault, each with its own
// clock. An NVML event is the kernel log's event when both name the same
// code and GPU (either bus id unknown: any GPU) and their times lie within
// the skew of the two clocks; each kernel-log event stands for at most as
// many NVML events as it folds repeats (KernelEvent::count). Two events of
// one code further apart than the skew are two events.
#pragma once

#include <chrono>
#include <deque>
#include <vector>

#include "core/kernel_event.h"

namespace gpudoctor {

// The kernel stamps its line when the driver prints it, NVML's watcher when
// its wait returns; the two differ by well under this.
inline constexpr std::chrono::milliseconds kXidPathSkew{3000};

// Whether the NVML event `nvml` is the kernel-log event `kernel`.
bool SameXid(const KernelEvent& kernel, const KernelEvent& nvml,
             std::chrono::milliseconds skew = kXidPathSkew);

// `kernel` (the kernel log's events) with NVML's Xid events added, except
// those the kernel log already holds; each kernel event absorbs the nearest
// NVML events first. Kept in time order where both are timed. Pure.
std::vector<KernelEvent> MergeXidPaths(std::vector<KernelEvent> kernel,
                                       std::vector<KernelEvent> nvml,
                                       std::chrono::milliseconds skew = kXidPathSkew);

// The same as events stream in (the agent): kernel-log events are released at
// once; an NVML event is held until its kernel-log line can no longer come
// (skew after its time, by `now`) and released only if none came. Bounded:
// only what arrived within twice the skew is kept.
class XidPathMerger {
 public:
  explicit XidPathMerger(std::chrono::milliseconds skew = kXidPathSkew) : skew_(skew) {}

  // Adds what the sources gave since the last call; returns the events to
  // record now.
  std::vector<KernelEvent> Add(std::vector<KernelEvent> kernel, std::vector<KernelEvent> nvml,
                               WallTime now);
  // Every NVML event still held (the agent stops).
  std::vector<KernelEvent> Flush();

 private:
  struct Recent {
    KernelEvent event;
    std::size_t capacity;  // NVML events it may still absorb
  };
  std::chrono::milliseconds skew_;
  std::deque<Recent> recent_kernel_;     // kernel-log Xids of the last 2 * skew
  std::vector<KernelEvent> held_nvml_;   // NVML Xids waiting for their line
};

}  // namespace gpudoctor
