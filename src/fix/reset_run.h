// Running a GPU reset (fix/reset_plan.h): persistence off, the reset,
// persistence restored in every path (a refused or failed reset included),
// then the GPU read back: present again under its UUID, answering, asking
// the driver for no further recovery. The commands run through `run` and the
// reading through `read_back`, so that tests give their own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "fix/reset_plan.h"

namespace gpudoctor {

struct CommandResult {
  int exit_status = -1;  // -1: could not start (see output)
  std::string output;    // stdout and stderr, or why it could not start
};

struct RanCommand {
  std::vector<std::string> argv;
  CommandResult result;
};

struct ResetRun {
  std::vector<RanCommand> ran;
  bool reset_done = false;                   // the reset command succeeded
  std::optional<bool> persistence_restored;  // nullopt: persistence was off
  bool gpu_back = false;
  std::string verdict;  // one line: what happened
  bool ok() const { return reset_done && gpu_back && persistence_restored.value_or(true); }
};

using RunCommand = std::function<CommandResult(const std::vector<std::string>&)>;
// The GPU with this UUID as read now; nullopt when it is not listed.
using ReadBack = std::function<std::optional<GpuStatus>(const std::string& uuid)>;

ResetRun RunReset(const ResetPlan& plan, const GpuStatus& before, const std::string& nvidia_smi,
                  const RunCommand& run, const ReadBack& read_back);

}  // namespace gpudoctor
