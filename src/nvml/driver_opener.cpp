#include "nvml/driver_opener.h"

#include "nvml/nvml_error.h"

namespace gpudoctor {
namespace driver_opener_detail {

std::optional<std::string> SystemText(CallTracker& tracker, const char* call,
                                      nvmlReturn_t (*f)(char*, unsigned)) {
  if (f == nullptr) return std::nullopt;
  char buf[kNvmlStringBufferSize] = {};
  nvmlReturn_t rc = tracker.Call(call, [&] { return f(buf, sizeof buf); }, NVML_ERROR_TIMEOUT);
  if (rc != NVML_SUCCESS) return std::nullopt;
  buf[sizeof buf - 1] = '\0';
  return std::string(buf);
}

// _v2 asks libcuda (cuDriverGetVersion) and answers LIBRARY_NOT_FOUND where
// there is none, as in many containers; version 1 still answers there (with
// the version this driver supports), as it does where _v2 is missing or
// answers FUNCTION_NOT_FOUND, NOT_SUPPORTED or DEPRECATED.
std::optional<std::int64_t> CudaDriverVersion(const NvmlFunctions& fn, CallTracker& tracker) {
  int cuda = 0;
  nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
  if (fn.nvmlSystemGetCudaDriverVersion_v2 != nullptr) {
    rc = tracker.Call("nvmlSystemGetCudaDriverVersion_v2",
                      [&] { return fn.nvmlSystemGetCudaDriverVersion_v2(&cuda); },
                      NVML_ERROR_TIMEOUT);
  }
  const bool try_v1 = rc == NVML_ERROR_LIBRARY_NOT_FOUND || rc == NVML_ERROR_FUNCTION_NOT_FOUND ||
                      rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_DEPRECATED;
  if (try_v1 && fn.nvmlSystemGetCudaDriverVersion != nullptr) {
    cuda = 0;
    rc = tracker.Call("nvmlSystemGetCudaDriverVersion",
                      [&] { return fn.nvmlSystemGetCudaDriverVersion(&cuda); },
                      NVML_ERROR_TIMEOUT);
  }
  if (rc != NVML_SUCCESS || cuda <= 0) return std::nullopt;
  return cuda;
}

void OpenDriver(const std::string& path, CallTracker& tracker, DriverOpenResult& out) {
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
  out.driver_version =
      SystemText(tracker, "nvmlSystemGetDriverVersion", fn.nvmlSystemGetDriverVersion);
  out.nvml_version = SystemText(tracker, "nvmlSystemGetNVMLVersion", fn.nvmlSystemGetNVMLVersion);
  out.cuda_driver_version = CudaDriverVersion(fn, tracker);
  unsigned count = 0;
  rc = tracker.Call("nvmlDeviceGetCount_v2", [&] { return fn.nvmlDeviceGetCount_v2(&count); },
                    NVML_ERROR_TIMEOUT);
  if (rc != NVML_SUCCESS) {
    out.error = NvmlError(rc, "nvmlDeviceGetCount_v2").message;
    return;
  }
  out.gpu_count = count;
}

}  // namespace driver_opener_detail

DriverOpener::DriverOpener(std::chrono::milliseconds call_deadline) : deadline_(call_deadline) {}

// A pending attempt's worker is detached by its own destructor (CallWorker).
DriverOpener::~DriverOpener() = default;

std::shared_ptr<const DriverOpenResult> DriverOpener::Open(const std::string& path) {
  const std::string hung_advice = ": the driver is hung; check 'dmesg | grep -i nvrm'";
  if (pending_) {
    if (!pending_->WaitFinished(deadline_)) {
      auto hung = std::make_shared<DriverOpenResult>();
      const auto waited = std::chrono::duration_cast<std::chrono::seconds>(
          std::chrono::steady_clock::now() - pending_since_);
      hung->error = "the NVIDIA driver has not answered " + pending_call_ + " for " +
                    std::to_string(waited.count()) +
                    " s (still waiting on that call; no new attempt is started)" + hung_advice;
      return hung;
    }
    // It returned at last, but every call after the late one was skipped
    // (CallTracker), so its result is incomplete: try again from the start.
    // Its nvmlInit, if it succeeded, stays counted: NVML is never shut down
    // after a hang (NvmlSession::HasAbandonedCalls).
    pending_.reset();
    pending_call_.clear();
  }
  auto worker = std::make_unique<CallWorker>(deadline_);
  auto result = std::make_shared<DriverOpenResult>();
  const bool finished = worker->Run([result, path](CallTracker& tracker) {
    driver_opener_detail::OpenDriver(path, tracker, *result);
  });
  if (finished) return result;
  pending_call_ = worker->hung_call();
  pending_since_ = std::chrono::steady_clock::now() - deadline_;
  pending_ = std::move(worker);
  auto hung = std::make_shared<DriverOpenResult>();
  hung->error = "the NVIDIA driver did not answer " + pending_call_ + " within " +
                std::to_string(deadline_.count()) + " ms" + hung_advice;
  return hung;
}

}  // namespace gpudoctor
