// Where the agent's events come from while it runs: the kernel ring buffer
// (/dev/kmsg, followed), or the journal when /dev/kmsg cannot be read, plus
// NVML's Xid events; and the GPU losses the agent sees itself in NVML.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "collect/kmsg.h"
#include "collect/xid_paths.h"
#include "core/gpu_status.h"
#include "core/kernel_event.h"
#include "nvml/nvml_xid_events.h"
#include "parse/kernel_events.h"

namespace gpudoctor {

class AgentEventSources {
 public:
  // `resume_monotonic_s`: kernel records up to this time since boot were
  // recorded by an earlier run of this boot and are skipped.
  AgentEventSources(CollectContext ctx, bool follow_kernel_log, bool watch_nvml,
                    const std::string& nvml_library, std::optional<double> resume_monotonic_s);

  // New kernel-log and NVML events since the last call. An Xid seen on both
  // paths is returned once (xid_paths.h): NVML's are held for the clock skew
  // of the two, so that the kernel's line, with its process, can claim them
  // (not held when the kernel log is not read).
  std::vector<KernelEvent> Poll();
  // NVML events still held (the agent stops).
  std::vector<KernelEvent> Flush() { return xid_paths_.Flush(); }
  // NVML's Xid events are being watched.
  bool watching_nvml_xids() const;

  std::string kernel_log_status() const { return kernel_status_; }
  std::string xid_status() const;
  std::optional<double> last_monotonic_s() const { return last_mono_; }

 private:
  std::vector<KernelEvent> PollKernel();
  std::vector<KernelEvent> PollJournal();
  // Kernel lines can reach the agent (followed, and kmsg or the journal read).
  bool ReadsKernelLog() const;

  CollectContext ctx_;
  bool follow_;
  std::unique_ptr<KmsgFollower> kmsg_;
  bool use_journal_ = false;
  WallTime journal_from_;
  std::set<std::string> journal_seen_;  // time + message of the last poll's lines
  std::unique_ptr<NvmlXidWatcher> xid_;
  XidPathMerger xid_paths_;
  std::optional<double> last_mono_;
  ExtractOptions extract_;  // with this machine's AER owners (pci_devices.h)
  std::string kernel_status_ = "not followed";
};

// GPU losses between two readings: a GPU that was ok and is now lost, hung or
// in error, or that NVML no longer lists. One event per GPU per transition.
std::vector<KernelEvent> GpuLossEvents(const SystemStatus& before, const SystemStatus& after,
                                       WallTime time);

}  // namespace gpudoctor
