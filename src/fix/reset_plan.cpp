#include "fix/reset_plan.h"

#include <fmt/format.h>

namespace gpudoctor {
namespace {
namespace reset_plan_detail {

bool NameHas(const GpuStatus& g, std::string_view what) {
  return g.name.find(what) != std::string::npos;
}

// Pascal and Volta boards with NVLink: a reset takes the whole group.
bool PreAmpereNvlinkBoard(const GpuStatus& g) {
  const bool pre_ampere = NameHas(g, "V100") || NameHas(g, "P100") || NameHas(g, "TITAN V") ||
                          NameHas(g, "GV100") || NameHas(g, "GP100");
  if (!pre_ampere) return false;
  for (const auto& l : g.nvlinks) {
    if (l.active.value_or(false)) return true;
  }
  return false;
}

std::string ProcessList(const GpuStatus& g) {
  std::string out;
  for (const auto& p : g.processes.value_or(std::vector<GpuProcess>{})) {
    std::string who = fmt::format("pid {} {}", p.pid, p.name.empty() ? "?" : p.name);
    if (!p.pod_name.empty()) {
      who += fmt::format(" (pod {}/{})", p.pod_namespace, p.pod_name);
    } else if (!p.container_id.empty()) {
      who += " (container " + p.container_id + ")";
    }
    out += (out.empty() ? "" : ", ") + who;
  }
  return out;
}

}  // namespace reset_plan_detail
}  // namespace

const char* CheckStateName(CheckState state) {
  switch (state) {
    case CheckState::kOk:
      return "ok";
    case CheckState::kBlocks:
      return "blocks";
    case CheckState::kNote:
      return "note";
  }
  return "note";
}

ResetPlan PlanReset(const ResetFacts& f) {
  ResetPlan plan;
  const GpuStatus& g = f.gpu;
  plan.gpu = g.pci_bus_id;
  auto add = [&](std::string name, CheckState state, std::string detail) {
    plan.checks.push_back(ResetCheck{std::move(name), state, std::move(detail)});
    plan.blocked = plan.blocked || state == CheckState::kBlocks;
  };
  if (!g.processes) {
    add("processes", CheckState::kNote,
        "NVML did not list the GPU's processes: the reset is refused if one uses it");
  } else if (g.processes->empty()) {
    add("processes", CheckState::kOk, "no process uses the GPU");
  } else {
    add("processes", CheckState::kBlocks,
        fmt::format("{} process(es) use the GPU: {}; stop them or drain the node first",
                    g.processes->size(), reset_plan_detail::ProcessList(g)));
  }
  if (g.mig_mode_enabled.value_or(false) && !g.mig_devices.empty()) {
    add("mig", CheckState::kBlocks,
        fmt::format("MIG mode with {} instance(s): destroy them first (nvidia-smi mig -i {} -dci, "
                    "then -dgi)",
                    g.mig_devices.size(), g.index));
  } else {
    add("mig", CheckState::kOk,
        g.mig_mode_enabled.value_or(false) ? "MIG mode, no instance" : "not in MIG mode");
  }
  if (reset_plan_detail::PreAmpereNvlinkBoard(g)) {
    add("nvlink_group", CheckState::kBlocks,
        fmt::format("{} is a pre-Ampere NVLink board: a reset resets every GPU of its NVLink "
                    "group together; reboot the node instead",
                    g.name));
  } else {
    add("nvlink_group", CheckState::kOk, "the GPU resets alone");
  }
  if (f.nvswitch_system && reset_plan_detail::NameHas(g, "A100")) {
    add("fabric_manager", f.fabric_manager_running ? CheckState::kOk : CheckState::kBlocks,
        f.fabric_manager_running
            ? "Fabric Manager runs (the GPU rejoins the NVSwitch fabric after the reset)"
            : "an A100 NVSwitch system without Fabric Manager running: the GPU cannot rejoin the "
              "fabric after a reset (systemctl start nvidia-fabricmanager)");
  }
  if (f.holders.empty()) {
    add("holders", CheckState::kOk, "no DCGM or dcgm-exporter process holds the GPUs");
  } else {
    std::string list;
    for (const auto& h : f.holders) {
      list += (list.empty() ? "" : ", ") + fmt::format("{} (pid {})", h.comm, h.pid);
    }
    add("holders", CheckState::kBlocks,
        "held open by " + list +
            ": stop them first (systemctl stop nvidia-dcgm, or the dcgm-exporter pod), start "
            "them after");
  }
  plan.persistence_on = g.persistence_mode.value_or(false);
  if (plan.persistence_on) {
    add("persistence", CheckState::kNote,
        "persistence mode is on: turned off for the reset and restored after, whatever happens");
  }
  if (f.max_recoveries > 0 && f.recent_recoveries >= f.max_recoveries) {
    plan.instead = RecoveryAction::kContactProvider;
    add("recent_recoveries", CheckState::kBlocks,
        fmt::format("{} GPU reset(s) and reboot(s) of this node in the last {} h (limit {}): it "
                    "keeps failing; contact support (or the cloud provider) instead of resetting "
                    "again",
                    f.recent_recoveries, f.period.count(), f.max_recoveries));
  } else {
    add("recent_recoveries", CheckState::kOk,
        fmt::format("{} reset(s) and reboot(s) in the last {} h{}", f.recent_recoveries,
                    f.period.count(),
                    f.max_recoveries > 0 ? fmt::format(" (limit {})", f.max_recoveries) : ""));
  }
  return plan;
}

std::vector<std::vector<std::string>> ResetCommands(const ResetPlan& plan,
                                                    const std::string& nvidia_smi) {
  std::vector<std::vector<std::string>> out;
  if (plan.persistence_on) out.push_back({nvidia_smi, "-i", plan.gpu, "-pm", "0"});
  out.push_back({nvidia_smi, "--gpu-reset", "-i", plan.gpu});
  if (plan.persistence_on) out.push_back({nvidia_smi, "-i", plan.gpu, "-pm", "1"});
  return out;
}

}  // namespace gpudoctor
