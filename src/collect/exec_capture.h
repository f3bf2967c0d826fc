// Runs a program with arguments (no shell), captures stdout and stderr
// together, and kills it when it runs past a deadline. Used for the few
// version probes that have no file to read (`nvcc --version`,
// `nv-fabricmanager --version`), and only when the collector root is "/".
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/result.h"

namespace gpudoctor {

struct ExecOutput {
  int exit_status = -1;  // exit code, or 128 + signal when killed by a signal
  std::string output;    // stdout and stderr interleaved, at most max_output bytes
};

// argv[0] is a path (or a name looked up on PATH). Errors: kNotFound when the
// program cannot be started, kTimeout after killing it (SIGKILL) at the
// deadline, kIo for pipe/spawn failures. Safe to call from threads: it uses
// posix_spawn, so nothing runs in the child before exec.
Result<ExecOutput> ExecCapture(const std::vector<std::string>& argv,
                               std::chrono::milliseconds timeout,
                               std::size_t max_output = 64 << 10);

}  // namespace gpudoctor
