// What `fix --reset-gpu` checks before it resets a GPU, and the commands it
// runs. A reset fails, or takes more than the one GPU, when:
//   - a process uses the GPU (nvidia-smi refuses: "In use by another client");
//   - the GPU is in MIG mode with instances (they must be destroyed first);
//   - the board is a pre-Ampere NVLink one (V100, P100): a reset resets every
//     GPU of its NVLink group together;
//   - on an A100 NVSwitch system Fabric Manager is not running (the GPU
//     cannot rejoin the fabric after it);
//   - a service holds the GPUs open (DCGM's nv-hostengine, dcgm-exporter);
//   - the node has had too many resets and reboots lately (anti-storm): a GPU
//     that keeps failing needs support, not another reset.
// Persistence mode on is no obstacle: it is turned off for the reset and
// restored afterwards, whatever happens. Pure.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "collect/named_processes.h"
#include "core/gpu_status.h"
#include "core/recovery_action.h"

namespace gpudoctor {

struct ResetFacts {
  GpuStatus gpu;                      // now, its processes with their owners (pods)
  std::vector<NamedProcess> holders;  // nv-hostengine, dcgm-exporter running
  bool nvswitch_system = false;       // NVSwitches on the PCI bus
  bool fabric_manager_running = false;
  // Resets (fix's audit log) and reboots (the agent's store) in the period.
  int recent_recoveries = 0;
  int max_recoveries = 3;  // 0: no limit
  std::chrono::hours period{24};
};

enum class CheckState { kOk, kBlocks, kNote };

struct ResetCheck {
  std::string name;  // "processes", "mig", "nvlink_group", "fabric_manager", "holders", ...
  CheckState state = CheckState::kOk;
  std::string detail;  // one line: what was found, and what to do about it
};

struct ResetPlan {
  std::string gpu;  // bus id
  std::vector<ResetCheck> checks;
  bool blocked = false;
  bool persistence_on = false;  // turned off first, restored after
  // What to do when the reset cannot be done or does not work: a reboot,
  // or support once the anti-storm limit is reached.
  RecoveryAction instead = RecoveryAction::kRebootNode;
};

ResetPlan PlanReset(const ResetFacts& facts);

// The commands, in order: persistence off (when on), the reset, persistence
// on again (when it was on).
std::vector<std::vector<std::string>> ResetCommands(const ResetPlan& plan,
                                                    const std::string& nvidia_smi);

// "ok", "blocks", "note".
const char* CheckStateName(CheckState state);

}  // namespace gpudoctor
