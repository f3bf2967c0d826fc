// Reads one GPU's full state through NVML into a GpuStatus. Runs inside a
// CallWorker job, so every driver call goes through the CallTracker.
#pragma once

#include <optional>

#include "core/gpu_status.h"
#include "nvml/call_worker.h"
#include "nvml/gpm_reader.h"
#include "nvml/nvml_library.h"

namespace gpudoctor {

struct GpuReadOptions {
  bool read_processes = true;
  bool read_nvlink = true;
  bool read_nvlink_topology = false;  // each active link's version and remote end
  // The SW thermal slowdown counter's field id on this driver
  // (ThermalSlowdownFieldId); nullopt: only nvmlDeviceGetViolationStatus.
  std::optional<unsigned> thermal_slowdown_field;
};

// Gets the handle for `index` and reads every field. Fields the GPU does not
// support stay null; other failures go to out.field_errors. When the GPU
// answers GPU_IS_LOST, out.state becomes kLost and reading stops; when the
// handle cannot be had for another reason, out.state becomes kError. With
// `gpm`, the GPM metrics since that state's previous sample (gpm_reader.h).
void ReadGpu(const NvmlFunctions& fn, unsigned index, const GpuReadOptions& options,
             CallTracker& tracker, GpuStatus& out, GpmState* gpm = nullptr);

}  // namespace gpudoctor
