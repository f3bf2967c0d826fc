#include "nvml/nvml_session.h"

#include <map>
#include <vector>

#include "nvml/call_worker.h"
#include "nvml/gpu_reader.h"
#include "nvml/nvml_error.h"
#include "nvml/nvml_library.h"

namespace gpudoctor {
namespace {

// What the system worker learns when it opens the driver.
struct OpenResult {
  std::shared_ptr<const NvmlLibrary> library;
  std::string error;  // empty on success
  std::optional<std::string> driver_version;
  std::optional<std::int64_t> cuda_driver_version;
  std::optional<std::string> nvml_version;
  unsigned gpu_count = 0;
};

std::optional<std::string> SystemText(const NvmlFunctions& fn, CallTracker& tracker,
                                      const char* call,
                                      nvmlReturn_t (*f)(char*, unsigned)) {
  if (f == nullptr) return std::nullopt;
  char buf[kNvmlStringBufferSize] = {};
  nvmlReturn_t rc = tracker.Call(call, [&] { return f(buf, sizeof buf); }, NVML_ERROR_TIMEOUT);
  (void)fn;
  if (rc != NVML_SUCCESS) return std::nullopt;
  buf[sizeof buf - 1] = '\0';
  return std::string(buf);
}

void OpenDriver(const std::string& path, CallTracker& tracker, OpenResult& out) {
  auto loaded = LoadNvmlLibrary(path);
  if (!loaded) {
    out.error = loaded.error().code == ErrorCode::kUnavailable
                    ? "no NVIDIA driver found (" + loaded.error().message +
                          "); install the NVIDIA driver (Debian: 'apt install nvidia-driver', "
                          "or your cloud's GPU driver package), or point "
                          "GPUDOCTOR_NVML_LIBRARY at libnvidia-ml.so.1"
                    : loaded.error().message;
    return;
  }
  const NvmlFunctions& fn = (*loaded)->fn;
  nvmlReturn_t rc = tracker.Call("nvmlInit_v2", [&] { return fn.nvmlInit_v2(); },
                                 NVML_ERROR_TIMEOUT);
  if (rc != NVML_SUCCESS) {
    out.error = "NVML initialisation failed: " + NvmlReturnMessage(rc) + " (" +
                NvmlReturnName(rc) + "); " + NvmlInitAdvice(rc);
    return;
  }
  out.library = *loaded;
  out.driver_version = SystemText(fn, tracker, "nvmlSystemGetDriverVersion",
                                  fn.nvmlSystemGetDriverVersion);
  out.nvml_version = SystemText(fn, tracker, "nvmlSystemGetNVMLVersion",
                                fn.nvmlSystemGetNVMLVersion);
  int cuda = 0;
  if (fn.nvmlSystemGetCudaDriverVersion_v2 != nullptr &&
      tracker.Call("nvmlSystemGetCudaDriverVersion_v2",
                   [&] { return fn.nvmlSystemGetCudaDriverVersion_v2(&cuda); },
                   NVML_ERROR_TIMEOUT) == NVML_SUCCESS && cuda > 0) {
    out.cuda_driver_version = cuda;
  }
  unsigned count = 0;
  rc = tracker.Call("nvmlDeviceGetCount_v2", [&] { return fn.nvmlDeviceGetCount_v2(&count); },
                    NVML_ERROR_TIMEOUT);
  if (rc != NVML_SUCCESS) {
    out.error = NvmlError(rc, "nvmlDeviceGetCount_v2").message;
    return;
  }
  out.gpu_count = count;
}

class Session final : public NvmlSession {
 public:
  explicit Session(const NvmlOptions& options) : options_(options) {}

  ~Session() override {
    if (!HasAbandonedCalls() && open_ && open_->library) {
      // Balanced with nvmlInit; skipped when a call is stuck in the driver.
      open_->library->fn.nvmlShutdown();
    }
  }

  SystemStatus Sample() override {
    SystemStatus status;
    if (!EnsureOpen(status)) return status;
    status.nvml_loaded = true;
    status.driver_version = open_->driver_version;
    status.cuda_driver_version = open_->cuda_driver_version;
    status.nvml_version = open_->nvml_version;

    // All GPUs are read in parallel, each on its own worker.
    std::vector<std::shared_ptr<GpuStatus>> results(open_->gpu_count);
    for (unsigned i = 0; i < open_->gpu_count; ++i) {
      if (sticky_.count(i)) continue;
      results[i] = std::make_shared<GpuStatus>();
      auto lib = open_->library;
      auto out = results[i];
      GpuReadOptions read{options_.read_processes, options_.read_nvlink};
      Worker(i).Submit([lib, out, i, read](CallTracker& tracker) {
        ReadGpu(lib->fn, i, read, tracker, *out);
      });
    }
    for (unsigned i = 0; i < open_->gpu_count; ++i) {
      status.gpus.push_back(Collect(i, results[i]));
    }
    return status;
  }

  bool HasAbandonedCalls() const override {
    if (system_worker_ && system_worker_->abandoned()) return true;
    for (const auto& [i, w] : workers_) {
      if (w->abandoned()) return true;
    }
    return false;
  }

 private:
  bool EnsureOpen(SystemStatus& status) {
    if (!open_) {
      system_worker_ = std::make_unique<CallWorker>(options_.call_deadline);
      auto result = std::make_shared<OpenResult>();
      std::string path = ResolveNvmlLibraryPath(options_.library_path);
      bool finished = system_worker_->Run(
          [result, path](CallTracker& tracker) { OpenDriver(path, tracker, *result); });
      if (!finished) {
        result = std::make_shared<OpenResult>();
        result->error = "the NVIDIA driver did not answer " + system_worker_->hung_call() +
                        " within " + std::to_string(options_.call_deadline.count()) +
                        " ms: the driver is hung; check 'dmesg | grep -i nvrm'";
      }
      open_ = result;
    }
    if (!open_->error.empty()) {
      status.nvml_loaded = false;
      status.nvml_error = open_->error;
      return false;
    }
    return true;
  }

  CallWorker& Worker(unsigned index) {
    auto& slot = workers_[index];
    if (!slot) slot = std::make_unique<CallWorker>(options_.call_deadline);
    return *slot;
  }

  GpuStatus Collect(unsigned index, const std::shared_ptr<GpuStatus>& result) {
    if (auto it = sticky_.find(index); it != sticky_.end()) return it->second;
    CallWorker& worker = Worker(index);
    GpuStatus gpu;
    if (worker.Wait()) {
      gpu = *result;
      if (gpu.state == GpuState::kOk) {
        last_good_[index] = gpu;
      } else {
        KeepIdentity(index, gpu);
        if (gpu.state == GpuState::kLost) sticky_[index] = gpu;
      }
      return gpu;
    }
    // Hung: keep what we knew of the GPU's identity; never call it again.
    if (auto it = last_good_.find(index); it != last_good_.end()) gpu = it->second;
    gpu.index = index;
    gpu.state = GpuState::kHung;
    gpu.state_detail = "the driver did not answer " + worker.hung_call() + " within " +
                       std::to_string(worker.deadline().count()) + " ms";
    sticky_[index] = gpu;
    return gpu;
  }

  // A GPU that failed early in a read still carries the name, UUID and bus
  // id it had when it last answered.
  void KeepIdentity(unsigned index, GpuStatus& gpu) const {
    auto it = last_good_.find(index);
    if (it == last_good_.end()) return;
    const GpuStatus& known = it->second;
    if (gpu.name.empty()) gpu.name = known.name;
    if (gpu.uuid.empty()) gpu.uuid = known.uuid;
    if (gpu.pci_bus_id.empty()) gpu.pci_bus_id = known.pci_bus_id;
    if (!gpu.serial) gpu.serial = known.serial;
  }

  NvmlOptions options_;
  std::shared_ptr<OpenResult> open_;
  std::unique_ptr<CallWorker> system_worker_;
  std::map<unsigned, std::unique_ptr<CallWorker>> workers_;
  std::map<unsigned, GpuStatus> sticky_;     // lost or hung: not called again
  std::map<unsigned, GpuStatus> last_good_;  // identity for later reports
};

}  // namespace

std::unique_ptr<NvmlSession> NvmlSession::Open(const NvmlOptions& options) {
  return std::make_unique<Session>(options);
}

}  // namespace gpudoctor
