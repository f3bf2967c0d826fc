// Changes to a GPU's settings through NVML, for `gpudoctor fix --apply`: one
// setter per call, on the GPU named by its PCI bus id, under the call
// deadline so a hung driver cannot hang us. Opening initialises NVML once
// more (NVML counts references), so it can live beside an NvmlSession.
//
// Errors name the call, the GPU index and NVML's own text, e.g.
// "nvmlDeviceSetPowerManagementLimit on GPU 0: Insufficient Permissions".
// Thread-safety: one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"

namespace gpudoctor {

// What fix applies. Values are as NVML takes them.
struct GpuSetting {
  enum class Kind { kPersistenceMode, kPowerLimit, kResetApplicationClocks, kComputeMode };
  Kind kind = Kind::kPersistenceMode;
  bool enable = true;                // kPersistenceMode
  std::uint32_t power_limit_mw = 0;  // kPowerLimit
  int compute_mode = 0;              // kComputeMode: NVML_COMPUTEMODE_* (0 = Default)
};

// What apply needs from a GPU controller; the NVML one below, or a test's.
class GpuController {
 public:
  virtual ~GpuController() = default;
  // Applies one setting to the GPU with this bus id ("0000:3b:00.0").
  virtual Status Apply(const std::string& pci_bus_id, const GpuSetting& setting) = 0;
};

class NvmlControl final : public GpuController {
 public:
  // Loads the library (path as for NvmlSession) and initialises NVML.
  // Errors: kUnavailable / kCorrupt from loading, the init failure, kTimeout.
  static Result<std::unique_ptr<NvmlControl>> Open(const std::string& library_path,
                                                   std::chrono::milliseconds call_deadline);
  ~NvmlControl() override;
  NvmlControl(const NvmlControl&) = delete;
  NvmlControl& operator=(const NvmlControl&) = delete;

  Status Apply(const std::string& pci_bus_id, const GpuSetting& setting) override;

  // True when a call never returned: the process must leave with _Exit.
  bool HasAbandonedCalls() const;

  struct State;

 private:
  explicit NvmlControl(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

// The NVML function a setting calls, e.g. "nvmlDeviceSetPersistenceMode".
const char* SettingCallName(GpuSetting::Kind kind);

}  // namespace gpudoctor
