// Xid events as the driver reports them, through NVML's event API
// (nvmlEventSetWait_v2 for nvmlEventTypeXidCriticalError), for the agent.
// The waits run on a thread of their own: a driver call that never returns
// only stops this watcher, never the caller. The thread opens the library
// itself (NVML is reference counted) and re-registers after failures with
// back-off, so a driver that is reloaded is picked up again.
//
// Thread-safety: Take() and status() may be called from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel_event.h"

namespace gpudoctor {

struct NvmlXidEvent {
  WallTime time;
  int xid = 0;
  std::string pci_bus_id;  // "0000:3b:00.0"; empty when the device is unknown
};

class NvmlXidWatcher {
 public:
  virtual ~NvmlXidWatcher() = default;
  // Starts watching every GPU. `library_path` as for NvmlOptions.
  static std::unique_ptr<NvmlXidWatcher> Start(const std::string& library_path);

  // Events since the last call, oldest first.
  virtual std::vector<NvmlXidEvent> Take() = 0;
  // One line: "watching 8 GPUs", or why it is not watching.
  virtual std::string status() const = 0;
};

// The event as the rules see kernel-log Xids: kind xid, source "nvml".
KernelEvent XidEventToKernelEvent(const NvmlXidEvent& event);

}  // namespace gpudoctor
