// Internal to the NVML reader: one GPU's reading session, which wraps each
// driver call so that NOT_SUPPORTED becomes a null field, GPU_IS_LOST stops
// all further calls on that GPU, and any other failure is recorded per field.
#pragma once

#include <optional>
#include <string>

#include "core/gpu_status.h"
#include "nvml/call_worker.h"
#include "nvml/gpu_reader.h"
#include "nvml/nvml_error.h"
#include "nvml/nvml_library.h"

namespace gpudoctor::nvml_detail {

class Reader {
 public:
  Reader(const NvmlFunctions& fn, CallTracker& tracker, GpuStatus& out)
      : fn_(fn), tracker_(tracker), out_(out) {}

  const NvmlFunctions& fn() const { return fn_; }
  bool stopped() const { return out_.state != GpuState::kOk; }

  // Calls f(args...) named `call`; `field` names what it reads. True when the
  // values are valid.
  template <typename F, typename... Args>
  bool Get(const char* call, const char* field, F f, Args... args) {
    if (stopped() || f == nullptr) return false;
    nvmlReturn_t rc = tracker_.Call(call, [&] { return f(args...); },
                                    NVML_ERROR_TIMEOUT);
    return Check(rc, call, field);
  }

  // Calls f(args...) named `call` and returns its answer without judging it;
  // NVML_ERROR_FUNCTION_NOT_FOUND when this driver does not export f, and
  // kStoppedAnswer once the GPU was found lost or hung (Check ignores it).
  template <typename F, typename... Args>
  nvmlReturn_t Call(const char* call, F f, Args... args) {
    if (stopped()) return kStoppedAnswer;
    if (f == nullptr) return NVML_ERROR_FUNCTION_NOT_FOUND;
    return tracker_.Call(call, [&] { return f(args...); }, NVML_ERROR_TIMEOUT);
  }
  static constexpr nvmlReturn_t kStoppedAnswer = NVML_ERROR_UNINITIALIZED;

  CallTracker& tracker() { return tracker_; }

  bool Check(nvmlReturn_t rc, const char* call, const char* field) {
    if (rc == NVML_SUCCESS) return true;
    if (stopped()) return false;  // lost or hung: said once, in the state
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND ||
        rc == NVML_ERROR_DEPRECATED || rc == NVML_ERROR_NOT_FOUND ||
        rc == NVML_ERROR_INVALID_ARGUMENT) {
      return false;  // not supported here: a null value, not an error
    }
    if (rc == NVML_ERROR_GPU_IS_LOST) {
      out_.state = GpuState::kLost;
      out_.state_detail = NvmlError(rc, call).message;
      return false;
    }
    if (rc == NVML_ERROR_TIMEOUT && tracker_.abandoned()) return false;
    out_.field_errors[field] = NvmlError(rc, call).message;
    return false;
  }

 private:
  const NvmlFunctions& fn_;
  CallTracker& tracker_;
  GpuStatus& out_;
};

// True when the newer of two calls gave an answer that means "ask the older
// one": this driver lacks the function (missing symbol or FUNCTION_NOT_FOUND),
// does not support it on this GPU, or has deprecated it.
inline bool AnswersWithOlderCall(nvmlReturn_t rc) {
  return rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_NOT_SUPPORTED ||
         rc == NVML_ERROR_DEPRECATED;
}

inline std::optional<std::string> Text(Reader& r, const char* call, const char* field,
                                nvmlReturn_t (*f)(nvmlDevice_t, char*, unsigned),
                                nvmlDevice_t dev) {
  char buf[kNvmlStringBufferSize] = {};
  if (!r.Get(call, field, f, dev, buf, static_cast<unsigned>(sizeof buf))) {
    return std::nullopt;
  }
  buf[sizeof buf - 1] = '\0';
  return std::string(buf);
}

inline std::optional<std::int64_t> Uint(Reader& r, const char* call, const char* field,
                                 nvmlReturn_t (*f)(nvmlDevice_t, unsigned*),
                                 nvmlDevice_t dev) {
  unsigned v = 0;
  if (!r.Get(call, field, f, dev, &v)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

inline std::optional<double> Watts(std::optional<std::int64_t> milliwatts) {
  if (!milliwatts) return std::nullopt;
  return static_cast<double>(*milliwatts) / 1000.0;
}

// `thermal_field`: the SW thermal slowdown counter's field id for this driver
// (nvml/field_ids.h); nullopt: nvmlDeviceGetViolationStatus only.
void ReadClocksAndPerformance(Reader& r, nvmlDevice_t dev, std::optional<unsigned> thermal_field,
                              GpuStatus& g);
void ReadModesAndMemoryErrors(Reader& r, nvmlDevice_t dev, GpuStatus& g);
void ReadPcie(Reader& r, nvmlDevice_t dev, GpuStatus& g);
// With `topology`, each active link's version and remote bus id too.
void ReadNvLinks(Reader& r, nvmlDevice_t dev, bool topology, GpuStatus& g);
void ReadProcesses(Reader& r, nvmlDevice_t dev, GpuStatus& g);
// The fabric registration (fabric_reader.cpp), then, after ReadNvLinks and
// ReadFabric, the NVLink P2P status towards every other GPU (from `cache`
// while it is younger than `refresh` and the states it was read under hold:
// gpu_reader.h).
void ReadFabric(Reader& r, nvmlDevice_t dev, GpuStatus& g);
void ReadNvLinkPeers(Reader& r, nvmlDevice_t dev, GpuStatus& g, NvLinkPeerCache* cache,
                     std::chrono::milliseconds refresh);
void ReadMemory(Reader& r, nvmlDevice_t dev, GpuStatus& g);

}  // namespace gpudoctor::nvml_detail
