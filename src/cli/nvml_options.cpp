#include "cli/nvml_options.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/printable_output.h"
#include "core/duration.h"

namespace gpudoctor {

Result<NvmlOptions> MakeNvmlOptions(const GlobalOptions& global) {
  NvmlOptions options;
  options.library_path = global.nvml_library;
  auto deadline = ParseDuration(global.nvml_timeout);
  if (!deadline) {
    return Error{ErrorCode::kInvalid, "--nvml-timeout: " + deadline.error().message};
  }
  options.call_deadline = *deadline;
  return options;
}

void ExitAfterSession(const NvmlSession& session, int code) {
  code = ExitCodeAfterOutput(code);
  std::cerr.flush();
  std::fflush(nullptr);
  if (session.HasAbandonedCalls()) std::_Exit(code);
  std::exit(code);
}

}  // namespace gpudoctor
