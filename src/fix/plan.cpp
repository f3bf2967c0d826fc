#include "fix/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "fix/plan_steps.h"

namespace gpudoctor {
namespace {

using namespace fix_internal;

struct Mapping {
  const char* finding;
  StepAction action;
};

// Which finding each step addresses, in the order steps are listed.
constexpr Mapping kMappings[] = {
    {"config.persistence_mode", StepAction::kPersistenceModeOn},
    {"config.power_limit", StepAction::kPowerLimit},
    {"power.cap", StepAction::kPowerLimit},
    {"config.application_clocks", StepAction::kResetApplicationClocks},
    {"config.compute_mode", StepAction::kComputeModeDefault},
    {"gpu.lost", StepAction::kGpuReset},
    {"gpu.lost", StepAction::kReseat},
    {"xid.recovery_action", StepAction::kGpuReset},
    {"ecc.row_remap", StepAction::kGpuReset},
    {"ecc.row_remap", StepAction::kRma},
    {"ecc.uncorrectable", StepAction::kGpuReset},
    {"ecc.uncorrectable", StepAction::kRma},
    {"xid.memory", StepAction::kGpuReset},
    {"config.pending_mode_change", StepAction::kGpuReset},
    {"xid.fallen_off_bus", StepAction::kReseat},
    {"gpu.dropped", StepAction::kReseat},
    {"pcie.replay", StepAction::kReseat},
    {"pcie.link_degraded", StepAction::kReseat},
    {"memory.pressure", StepAction::kReloadUvm},
    {"fabricmanager.not_running", StepAction::kRestartFabricManager},
    {"fabricmanager.errors", StepAction::kRestartFabricManager},
    {"xid.gsp", StepAction::kGspOff},
};

bool HostWide(StepAction a) {
  return a == StepAction::kReloadUvm || a == StepAction::kRestartFabricManager ||
         a == StepAction::kGspOff;
}

const GpuStatus* FindByBus(const std::vector<GpuStatus>& gpus, const std::string& bus) {
  for (const GpuStatus& g : gpus) {
    if (g.pci_bus_id == bus) return &g;
  }
  return nullptr;
}

class Builder {
 public:
  Builder(const std::vector<GpuStatus>& gpus, const PlanOptions& options)
      : gpus_(gpus), options_(options) {}

  Status CheckPowerLimit() const {
    if (!options_.power_limit_w) return OkStatus();
    double w = *options_.power_limit_w;
    if (!(w > 0) || !std::isfinite(w)) {
      return Error{ErrorCode::kInvalid, "--power-limit: must be a number of watts above 0"};
    }
    for (const GpuStatus& g : gpus_) {
      if (!Selected(g.pci_bus_id)) continue;
      std::string label = fmt::format("GPU {} ({})", g.index, g.pci_bus_id);
      if (!g.power_min_limit_w || !g.power_max_limit_w) {
        return Error{ErrorCode::kInvalid,
                     fmt::format("--power-limit {} W: the power limit constraints of {} are "
                                 "unknown, so the value cannot be checked",
                                 w, label)};
      }
      if (w < *g.power_min_limit_w || w > *g.power_max_limit_w) {
        return Error{
            ErrorCode::kInvalid,
            fmt::format("--power-limit {} W: outside the range of {}, {}-{} W", w, label,
                        std::lround(*g.power_min_limit_w), std::lround(*g.power_max_limit_w))};
      }
    }
    return OkStatus();
  }

  void AddFinding(const Finding& f) {
    bool mapped = false;
    for (const Mapping& m : kMappings) {
      if (f.id != m.finding) continue;
      mapped = true;
      if (HostWide(m.action)) {
        Add(f.id, m.action, "");
        continue;
      }
      for (const std::string& bus : f.gpus) {
        if (Selected(bus)) Add(f.id, m.action, bus);
      }
    }
    if (!mapped) Unaddressed(f.id);
  }

  // --power-limit also covers GPUs no finding names.
  void AddRequestedPowerLimits() {
    if (!options_.power_limit_w) return;
    for (const GpuStatus& g : gpus_) {
      if (Selected(g.pci_bus_id)) Add("", StepAction::kPowerLimit, g.pci_bus_id);
    }
  }

  FixPlan Finish() {
    // Automatic steps first (GPU order kept), then what to do by hand.
    std::stable_partition(plan_.steps.begin(), plan_.steps.end(),
                          [](const FixStep& s) { return s.automatic; });
    return std::move(plan_);
  }

 private:
  bool Selected(const std::string& bus) const {
    return options_.gpus.empty() ||
           std::find(options_.gpus.begin(), options_.gpus.end(), bus) != options_.gpus.end();
  }

  void Unaddressed(const std::string& id) {
    auto& u = plan_.unaddressed;
    if (std::find(u.begin(), u.end(), id) == u.end()) u.push_back(id);
  }

  void Add(const std::string& finding_id, StepAction action, const std::string& bus) {
    for (const FixStep& s : plan_.steps) {
      if (s.action == action && s.pci_bus_id == bus) return;  // one step per GPU and action
    }
    FixStep step;
    step.action = action;
    step.finding_id = finding_id;
    step.pci_bus_id = bus;
    const GpuStatus* gpu = bus.empty() ? nullptr : FindByBus(gpus_, bus);
    if (gpu != nullptr) {
      step.gpu_index = gpu->index;
      step.uuid = gpu->uuid;
    }
    if (!IsAutomatic(action)) {
      ManualStep(gpu, step);
      plan_.steps.push_back(std::move(step));
      return;
    }
    // An automatic step exists only when the GPU answers and needs it now.
    if (gpu == nullptr || !NeedsChange(*gpu, step)) {
      if (!finding_id.empty()) Unaddressed(finding_id);
      return;
    }
    MarkSkipped(*gpu, step);
    plan_.steps.push_back(std::move(step));
  }

  bool NeedsChange(const GpuStatus& gpu, FixStep& step) const {
    switch (step.action) {
      case StepAction::kPersistenceModeOn:
        return PersistenceStep(gpu, step);
      case StepAction::kPowerLimit: {
        std::optional<double> target =
            options_.power_limit_w ? options_.power_limit_w : gpu.power_default_limit_w;
        return target && PowerLimitStep(gpu, *target, step);
      }
      case StepAction::kResetApplicationClocks:
        return ApplicationClocksStep(gpu, step);
      case StepAction::kComputeModeDefault:
        return ComputeModeStep(gpu, step);
      default:
        return false;
    }
  }

  void MarkSkipped(const GpuStatus& gpu, FixStep& step) const {
    if (gpu.processes) step.processes = *gpu.processes;
    if (gpu.state != GpuState::kOk) {
      step.skipped = true;
      step.skip_reason =
          Text{fmt::format("the GPU is {} ({})", GpuStateName(gpu.state), gpu.state_detail),
               fmt::format("该 GPU 状态为 {}（{}）", GpuStateName(gpu.state), gpu.state_detail)};
      return;
    }
    if (options_.force) return;
    if (!gpu.processes) {
      step.skipped = true;
      step.skip_reason =
          Text{"its compute processes could not be read; use --force to change it anyway",
               "无法读取该 GPU 上的计算进程；如仍要修改请使用 `--force`"};
    } else if (!gpu.processes->empty()) {
      std::string list;
      for (const GpuProcess& p : *gpu.processes) {
        list += fmt::format("{}{} {}", list.empty() ? "" : ", ", p.pid, p.name);
      }
      step.skipped = true;
      step.skip_reason = Text{
          fmt::format("{} compute process(es) on this GPU ({}); use --force to change it anyway",
                      gpu.processes->size(), list),
          fmt::format("该 GPU 上有 {} 个计算进程（{}）；如仍要修改请使用 `--force`",
                      gpu.processes->size(), list)};
    }
  }

  const std::vector<GpuStatus>& gpus_;
  const PlanOptions& options_;
  FixPlan plan_;
};

}  // namespace

const char* RiskName(Risk risk) {
  switch (risk) {
    case Risk::kLow:
      return "low";
    case Risk::kMedium:
      return "medium";
    case Risk::kHigh:
      return "high";
  }
  return "?";
}

const char* StepActionName(StepAction action) {
  switch (action) {
    case StepAction::kPersistenceModeOn:
      return "persistence_mode_on";
    case StepAction::kPowerLimit:
      return "power_limit";
    case StepAction::kResetApplicationClocks:
      return "reset_application_clocks";
    case StepAction::kComputeModeDefault:
      return "compute_mode_default";
    case StepAction::kGpuReset:
      return "gpu_reset";
    case StepAction::kReloadUvm:
      return "reload_nvidia_uvm";
    case StepAction::kRestartFabricManager:
      return "restart_fabric_manager";
    case StepAction::kGspOff:
      return "gsp_off";
    case StepAction::kReseat:
      return "reseat";
    case StepAction::kRma:
      return "rma";
  }
  return "?";
}

bool IsAutomatic(StepAction action) {
  return action == StepAction::kPersistenceModeOn || action == StepAction::kPowerLimit ||
         action == StepAction::kResetApplicationClocks || action == StepAction::kComputeModeDefault;
}

Result<FixPlan> BuildFixPlan(const std::vector<Finding>& findings,
                             const std::vector<GpuStatus>& gpus, const PlanOptions& options) {
  Builder b(gpus, options);
  if (auto ok = b.CheckPowerLimit(); !ok) return ok.error();
  for (const Finding& f : findings) b.AddFinding(f);
  b.AddRequestedPowerLimits();
  return b.Finish();
}

std::size_t ApplicableSteps(const FixPlan& plan) {
  return static_cast<std::size_t>(
      std::count_if(plan.steps.begin(), plan.steps.end(),
                    [](const FixStep& s) { return s.automatic && !s.skipped; }));
}

std::string FieldValueText(const FixStep& step, const GpuStatus& gpu) {
  switch (step.action) {
    case StepAction::kPersistenceModeOn:
      return gpu.persistence_mode ? (*gpu.persistence_mode ? "on" : "off") : "";
    case StepAction::kPowerLimit:
      return gpu.power_limit_w ? WattsText(*gpu.power_limit_w) : "";
    case StepAction::kResetApplicationClocks:
      if (!gpu.clocks_applications_graphics_mhz && !gpu.clocks_applications_memory_mhz) return "";
      return ClockPairText(gpu.clocks_applications_graphics_mhz,
                           gpu.clocks_applications_memory_mhz);
    case StepAction::kComputeModeDefault:
      return gpu.compute_mode.value_or("");
    default:
      return "";
  }
}

}  // namespace gpudoctor
