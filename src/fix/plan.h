// The plan of `gpudoctor fix`: from a diagnosis's findings and the GPUs' state
// now, the steps that address them. Some gpudoctor applies itself through NVML
// (persistence mode, power limit, application clocks, compute mode); the rest
// it only prints with the command to type (GPU reset, reloading nvidia_uvm,
// restarting the fabric manager, turning GSP firmware off, reseat or RMA).
// Pure: no I/O, no NVML.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "core/result.h"
#include "nvml/nvml_control.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

enum class StepAction {
  // Applied by gpudoctor.
  kPersistenceModeOn,
  kPowerLimit,
  kResetApplicationClocks,
  kComputeModeDefault,
  // Printed only.
  kGpuReset,
  kReloadUvm,
  kRestartFabricManager,
  kGspOff,
  kReseat,
  kRma,
};

enum class Risk { kLow, kMedium, kHigh };

// "low", "medium", "high".
const char* RiskName(Risk risk);
// "persistence_mode_on", "power_limit", "reset_application_clocks",
// "compute_mode_default", "gpu_reset", "reload_nvidia_uvm",
// "restart_fabric_manager", "gsp_off", "reseat", "rma".
const char* StepActionName(StepAction action);
// True for the actions gpudoctor applies itself.
bool IsAutomatic(StepAction action);

struct FixStep {
  StepAction action = StepAction::kPersistenceModeOn;
  // The finding it addresses; empty for a power limit asked by --power-limit
  // alone.
  std::string finding_id;
  // The GPU; empty bus id for host-wide steps.
  std::optional<unsigned> gpu_index;
  std::string pci_bus_id;
  std::string uuid;
  bool automatic = false;  // applied by gpudoctor
  bool safe_with_processes = false;
  Risk risk = Risk::kLow;
  Text what;            // what it does, one line
  std::string command;  // the equivalent command; empty when none (reseat)
  // Automatic steps: the setting, its value now and the value it sets, as
  // text ("off" -> "on", "250 W" -> "700 W", "1200/5001 MHz", "Prohibited").
  std::string field;  // "persistence_mode", "power_limit_w", "applications_clocks", "compute_mode"
  std::string before;
  std::string target;
  GpuSetting setting;
  // Compute processes on the GPU now (automatic steps).
  std::vector<GpuProcess> processes;
  // An automatic step that will not be applied, and why.
  bool skipped = false;
  Text skip_reason;
  Text note;  // extra advice for a printed step; may be empty
};

struct FixPlan {
  std::vector<FixStep> steps;
  // Findings of the diagnosis that no step addresses (ids, in order, unique).
  std::vector<std::string> unaddressed;
};

struct PlanOptions {
  std::optional<double> power_limit_w;  // --power-limit; else each GPU's default
  std::vector<std::string> gpus;        // bus ids the steps may touch; empty: all
  bool force = false;                   // change GPUs that have compute processes
};

// Builds the plan. Errors (kInvalid, one line naming the option): a
// --power-limit outside a GPU's [min, max] constraints, or a GPU whose
// constraints are unknown.
Result<FixPlan> BuildFixPlan(const std::vector<Finding>& findings,
                             const std::vector<GpuStatus>& gpus, const PlanOptions& options);

// Automatic steps that will be applied (not skipped).
std::size_t ApplicableSteps(const FixPlan& plan);

// The value a step's field has in `gpu`, as FixStep::before shows it; empty
// when unknown or when the step has no field.
std::string FieldValueText(const FixStep& step, const GpuStatus& gpu);

}  // namespace gpudoctor
