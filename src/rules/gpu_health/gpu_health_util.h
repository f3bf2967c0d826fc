// Helpers shared by the GPU health and configuration rules
// (rules/gpu_health/group.cpp): growth of cumulative counters over a window,
// "busy" judged over the window, and the evidence and actions these rules
// repeat (GPU reset, reboot). Pure.
#pragma once

#include <optional>
#include <string>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {

// An integer field as a double, for ValuesOf / GrowthOf getters.
std::optional<double> AsDouble(const std::optional<std::int64_t>& value);

// How a cumulative counter (ECC counts, PCIe replays, NVLink errors) grew
// over the window.
struct CounterGrowth {
  double first = 0;     // the first value seen
  double last = 0;      // the last value seen
  double increase = 0;  // sum of the rises between readings
  double seconds = 0;   // time between the first and last reading with a value; 0 unknown
};

// nullopt when fewer than two readings have a value. A drop between two
// readings means the counter was reset (driver reload, GPU reset): the new
// value then counts as growth since the reset.
std::optional<CounterGrowth> GrowthOf(const GpuSeries& gpu, const GpuGetter& get);

// The growth per minute; a window shorter than a minute (or of unknown
// length) counts as one minute, so that a burst in a 10 s window is not
// multiplied into a high rate.
double PerMinute(const CounterGrowth& growth);

// Utilisation at or above thresholds.utilization_normal_min_percent in at
// least config.sustained_fraction of the readings that have one.
bool SustainedBusy(const GpuSeries& gpu, const DiagnosisInput& input);

// An NVSwitch system: Fabric Manager's check found NVSwitches, or the PCI
// scan did. False when neither was read (analyze of files).
bool NvSwitchSystem(const DiagnosisInput& input);

// One measured number as evidence.
EvidenceItem Measured(Text text, double value, std::string unit);

// "Reset the GPU once no process uses it": `sudo nvidia-smi -r -i N`.
Action ResetGpuAction(const GpuStatus& gpu);
// "If the reset fails or is not possible, reboot the node": `sudo reboot`.
Action RebootAction();
// "Take the GPU out of service and have it replaced (RMA)".
Action ReplaceGpuAction();

}  // namespace gpudoctor
