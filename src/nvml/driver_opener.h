// Opening the NVIDIA driver: dlopen, nvmlInit_v2, the driver, NVML and CUDA
// versions and the GPU count, each call under the deadline of a CallWorker.
//
// A DriverOpener holds at most one attempt at a time. When an attempt hangs
// (a driver stuck in nvmlInit, as a GPU in GSP trouble can leave it), its
// thread stays in the driver; the next Open() waits on that same attempt
// instead of starting another, so a caller that retries every minute (the
// agent) keeps one stuck thread in all, not one per retry. Once the hung
// attempt returns, the next Open() starts afresh.
//
// Thread-safety: one thread at a time may call Open(); HasHungAttempt() may be
// called from that thread at any time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "nvml/call_worker.h"
#include "nvml/nvml_library.h"

namespace gpudoctor {

// What an attempt learned. `error` is empty on success; `library` is set once
// nvmlInit succeeded (even when a later call failed).
struct DriverOpenResult {
  std::shared_ptr<const NvmlLibrary> library;
  std::string error;
  std::optional<std::string> driver_version;
  std::optional<std::int64_t> cuda_driver_version;
  std::optional<std::string> nvml_version;
  unsigned gpu_count = 0;
};

class DriverOpener {
 public:
  explicit DriverOpener(std::chrono::milliseconds call_deadline);
  ~DriverOpener();
  DriverOpener(const DriverOpener&) = delete;
  DriverOpener& operator=(const DriverOpener&) = delete;

  // Opens the library at `path` (ResolveNvmlLibraryPath's answer). Never
  // null. When a call overruns the deadline, or an earlier attempt is still
  // stuck (waited on for one more deadline), the result's error says so and
  // names the call; the attempt then stays pending.
  std::shared_ptr<const DriverOpenResult> Open(const std::string& path);

  // True while an attempt is stuck in the driver: the process must then leave
  // with std::_Exit (nvml_session.h).
  bool HasHungAttempt() const { return pending_ != nullptr; }

 private:
  std::chrono::milliseconds deadline_;
  std::unique_ptr<CallWorker> pending_;  // the hung attempt, if any
  std::string pending_call_;             // the call it hangs in
  std::chrono::steady_clock::time_point pending_since_{};
};

}  // namespace gpudoctor
