// Turns the global command-line options into NvmlOptions.
#pragma once

#include "cli/commands.h"
#include "core/result.h"
#include "nvml/nvml_session.h"

namespace gpudoctor {

Result<NvmlOptions> MakeNvmlOptions(const GlobalOptions& global);

// Leaves the process with `code`. When a driver call is still stuck, NVML can
// neither be shut down nor unloaded, so this skips destructors (after
// flushing our output) instead of hanging in them.
[[noreturn]] void ExitAfterSession(const NvmlSession& session, int code);

}  // namespace gpudoctor
