#include "nvml/nvml_control.h"

#include "core/gpu_status.h"
#include "nvml/call_worker.h"
#include "nvml/nvml_error.h"
#include "nvml/nvml_library.h"

namespace gpudoctor {

struct NvmlControl::State {
  std::shared_ptr<const NvmlLibrary> library;
  std::unique_ptr<CallWorker> worker;
  bool initialised = false;
};

namespace {

// NVML's own text for a code when the library has nvmlErrorString.
std::string ErrorText(const NvmlFunctions& fn, nvmlReturn_t rc) {
  if (fn.nvmlErrorString != nullptr) {
    if (const char* text = fn.nvmlErrorString(rc); text != nullptr && *text != '\0') return text;
  }
  return NvmlReturnMessage(rc) + " (" + NvmlReturnName(rc) + ")";
}

ErrorCode CodeOf(nvmlReturn_t rc) { return NvmlError(rc, "").code; }

// The result of one job on the worker: owned by the job (see call_worker.h).
struct JobResult {
  nvmlReturn_t rc = NVML_SUCCESS;
  std::string call;  // the call that failed
  int index = -1;    // the GPU's NVML index, once found
};

// Finds the GPU by bus id, then runs the setter.
void RunSetting(const NvmlFunctions& fn, const std::string& bus_id, const GpuSetting& s,
                CallTracker& tracker, JobResult& out) {
  unsigned count = 0;
  out.call = "nvmlDeviceGetCount_v2";
  out.rc = tracker.Call(
      "nvmlDeviceGetCount_v2", [&] { return fn.nvmlDeviceGetCount_v2(&count); },
      NVML_ERROR_TIMEOUT);
  if (out.rc != NVML_SUCCESS) return;
  nvmlDevice_t device = nullptr;
  for (unsigned i = 0; i < count && out.index < 0; ++i) {
    nvmlDevice_t d = nullptr;
    if (tracker.Call(
            "nvmlDeviceGetHandleByIndex_v2",
            [&] { return fn.nvmlDeviceGetHandleByIndex_v2(i, &d); },
            NVML_ERROR_TIMEOUT) != NVML_SUCCESS) {
      continue;
    }
    nvmlPciInfo_t pci{};
    if (fn.nvmlDeviceGetPciInfo_v3 == nullptr ||
        tracker.Call(
            "nvmlDeviceGetPciInfo_v3", [&] { return fn.nvmlDeviceGetPciInfo_v3(d, &pci); },
            NVML_ERROR_TIMEOUT) != NVML_SUCCESS) {
      continue;
    }
    pci.busId[sizeof pci.busId - 1] = '\0';
    if (NormalizePciBusId(pci.busId) == bus_id) {
      out.index = static_cast<int>(i);
      device = d;
    }
  }
  out.call = SettingCallName(s.kind);
  if (out.index < 0) {
    out.rc = NVML_ERROR_NOT_FOUND;
    return;
  }
  auto call = [&](auto* f, auto&&... args) -> nvmlReturn_t {
    if (f == nullptr) return NVML_ERROR_FUNCTION_NOT_FOUND;
    return tracker.Call(
        SettingCallName(s.kind), [&] { return f(device, args...); }, NVML_ERROR_TIMEOUT);
  };
  switch (s.kind) {
    case GpuSetting::Kind::kPersistenceMode:
      out.rc = call(fn.nvmlDeviceSetPersistenceMode,
                    s.enable ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED);
      break;
    case GpuSetting::Kind::kPowerLimit:
      out.rc = call(fn.nvmlDeviceSetPowerManagementLimit, s.power_limit_mw);
      break;
    case GpuSetting::Kind::kResetApplicationClocks:
      out.rc = call(fn.nvmlDeviceResetApplicationsClocks);
      break;
    case GpuSetting::Kind::kComputeMode:
      out.rc = call(fn.nvmlDeviceSetComputeMode, s.compute_mode);
      break;
  }
}

}  // namespace

const char* SettingCallName(GpuSetting::Kind kind) {
  switch (kind) {
    case GpuSetting::Kind::kPersistenceMode:
      return "nvmlDeviceSetPersistenceMode";
    case GpuSetting::Kind::kPowerLimit:
      return "nvmlDeviceSetPowerManagementLimit";
    case GpuSetting::Kind::kResetApplicationClocks:
      return "nvmlDeviceResetApplicationsClocks";
    case GpuSetting::Kind::kComputeMode:
      return "nvmlDeviceSetComputeMode";
  }
  return "?";
}

NvmlControl::NvmlControl(std::shared_ptr<State> state) : state_(std::move(state)) {}

NvmlControl::~NvmlControl() {
  // Balanced with nvmlInit; skipped when a call is stuck in the driver.
  if (state_->initialised && !HasAbandonedCalls()) state_->library->fn.nvmlShutdown();
}

bool NvmlControl::HasAbandonedCalls() const { return state_->worker->abandoned(); }

Result<std::unique_ptr<NvmlControl>> NvmlControl::Open(const std::string& library_path,
                                                       std::chrono::milliseconds call_deadline) {
  auto loaded = LoadNvmlLibrary(ResolveNvmlLibraryPath(library_path));
  if (!loaded) return loaded.error();
  auto state = std::make_shared<State>();
  state->library = *loaded;
  state->worker = std::make_unique<CallWorker>(call_deadline);
  auto rc = std::make_shared<nvmlReturn_t>(NVML_SUCCESS);
  auto lib = state->library;
  bool finished = state->worker->Run([lib, rc](CallTracker& tracker) {
    *rc = tracker.Call(
        "nvmlInit_v2", [&] { return lib->fn.nvmlInit_v2(); }, NVML_ERROR_TIMEOUT);
  });
  if (!finished) {
    return Error{ErrorCode::kTimeout, "the NVIDIA driver did not answer nvmlInit_v2 within " +
                                          std::to_string(call_deadline.count()) + " ms"};
  }
  if (*rc != NVML_SUCCESS) {
    return Error{CodeOf(*rc), "nvmlInit_v2: " + ErrorText(lib->fn, *rc)};
  }
  state->initialised = true;
  return std::unique_ptr<NvmlControl>(new NvmlControl(state));
}

Status NvmlControl::Apply(const std::string& pci_bus_id, const GpuSetting& setting) {
  CallWorker& worker = *state_->worker;
  if (worker.abandoned()) {
    return Error{ErrorCode::kTimeout, std::string(SettingCallName(setting.kind)) +
                                          ": not called, the driver is hung (" +
                                          worker.hung_call() + " never returned)"};
  }
  auto result = std::make_shared<JobResult>();
  auto lib = state_->library;
  const std::string bus_id = NormalizePciBusId(pci_bus_id);
  bool finished = worker.Run([lib, result, bus_id, setting](CallTracker& tracker) {
    RunSetting(lib->fn, bus_id, setting, tracker, *result);
  });
  if (!finished) {
    // The job may still run: read nothing it writes.
    return Error{ErrorCode::kTimeout,
                 worker.hung_call() + " on GPU " + pci_bus_id + ": no answer within " +
                     std::to_string(worker.deadline().count()) + " ms (the driver is hung)"};
  }
  if (result->rc == NVML_SUCCESS) return OkStatus();
  const std::string gpu =
      result->index >= 0 ? "GPU " + std::to_string(result->index) : "GPU " + pci_bus_id;
  if (result->index < 0 && result->rc == NVML_ERROR_NOT_FOUND) {
    return Error{ErrorCode::kNotFound, "no GPU with bus id " + pci_bus_id + " in NVML"};
  }
  return Error{CodeOf(result->rc),
               result->call + " on " + gpu + ": " + ErrorText(lib->fn, result->rc)};
}

}  // namespace gpudoctor
