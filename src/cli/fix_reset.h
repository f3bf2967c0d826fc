// `gpudoctor fix --reset-gpu GPU`: a guided GPU reset (fix/reset_plan.h,
// fix/reset_run.h). Dry run by default: shows the preconditions and the
// commands; with --apply (root, after a confirmation or --yes) turns
// persistence off, resets, restores persistence in every path, reads the GPU
// back and records the outcome in fix's audit log. A failed reset keeps its
// evidence in the data directory and recommends the reboot (or support,
// past the anti-storm limit).
#pragma once

#include <string>

#include "cli/commands.h"

namespace gpudoctor {

struct FixResetOptions {
  std::string gpu;  // the selector
  bool apply = false;
  bool yes = false;
  std::string format = "text";
  std::string data_dir;
  bool allow_shared_data_dir = false;
  std::string config;
  std::string root = "/";
};

int RunFixReset(const FixResetOptions& options, const GlobalOptions& global);

}  // namespace gpudoctor
