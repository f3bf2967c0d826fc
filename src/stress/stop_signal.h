// SIGINT and SIGTERM stop a stress run: the handler only sets a flag, which
// the test threads read between kernel launches (each launch is short), so
// the kernels stop and device memory is freed within about a launch.
#pragma once

#include <atomic>

namespace gpudoctor {

// Installs the handlers (once per process) and clears the flag.
void InstallStressStopHandlers();
// True once SIGINT or SIGTERM arrived.
bool StressStopRequested();
// For tests and for a run that must end early on its own (a GPU lost).
void RequestStressStop();

}  // namespace gpudoctor
