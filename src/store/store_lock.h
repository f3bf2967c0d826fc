// The writer's lock on data_dir/agent.lock: flock(LOCK_EX | LOCK_NB) on a
// file holding the writer's pid, held until the descriptor is closed (also
// by the kernel when the process dies, so a kill -9 leaves no stale lock).
#pragma once

#include <string>

#include "core/result.h"

namespace gpudoctor {

// The open, locked descriptor; an error naming the lock file and the pid
// holding it when another process has it.
Result<int> LockStoreDir(const std::string& data_dir);

// Whether a writer (a running agent, possibly in another container sharing
// the directory) holds the lock now. Probes with a shared lock taken and
// released at once; false when there is no lock file or it cannot be read.
bool StoreDirHeld(const std::string& data_dir);

}  // namespace gpudoctor
