// Step constructors for the fix plan: each fills one FixStep with its text in
// both languages, its command, risk and whether it is safe while processes
// run. Internal to src/fix/.
#pragma once

#include "fix/plan.h"

namespace gpudoctor::fix_internal {

// "250 W"; "1200/5001 MHz" (graphics/memory, "?" for unknown).
std::string WattsText(double w);
std::string ClockPairText(const std::optional<std::int64_t>& graphics,
                          const std::optional<std::int64_t>& memory);
// The GPU's label in text: "GPU 0 (0000:18:00.0)", or the bus id alone.
std::string StepGpuLabel(const FixStep& step);
// "-i 0" or "-i 0000:18:00.0" for nvidia-smi.
std::string NvidiaSmiTarget(const FixStep& step);

// Automatic steps, for a GPU with a known current value. Return false when
// the GPU does not need the change (or its value is unknown).
bool PersistenceStep(const GpuStatus& gpu, FixStep& step);
bool PowerLimitStep(const GpuStatus& gpu, double target_w, FixStep& step);
bool ApplicationClocksStep(const GpuStatus& gpu, FixStep& step);
bool ComputeModeStep(const GpuStatus& gpu, FixStep& step);

// Printed steps; step.action, the GPU and finding already set. `gpu` may be
// null (not in NVML now).
void ManualStep(const GpuStatus* gpu, FixStep& step);

}  // namespace gpudoctor::fix_internal
