// The writer's lock on a data directory: flock(LOCK_EX | LOCK_NB) on the
// directory itself and on data_dir/agent.lock (which holds the writer's pid
// for the message a second writer gets), held until the descriptors are
// closed (also by the kernel when the process dies, so a kill -9 leaves no
// stale lock). The directory's lock holds even when someone deletes
// agent.lock: a second agent is refused beside a live one either way.
// agent.lock is never opened through a symbolic link.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"

namespace gpudoctor {

class StoreDirLock {
 public:
  ~StoreDirLock();
  StoreDirLock(const StoreDirLock&) = delete;
  StoreDirLock& operator=(const StoreDirLock&) = delete;

 private:
  friend Result<std::unique_ptr<StoreDirLock>> LockStoreDir(const std::string& data_dir);
  StoreDirLock(int dir_fd, int file_fd) : dir_fd_(dir_fd), file_fd_(file_fd) {}
  int dir_fd_ = -1;
  int file_fd_ = -1;
};

// The lock held; an error naming the data directory and the pid holding it
// when another process has it.
Result<std::unique_ptr<StoreDirLock>> LockStoreDir(const std::string& data_dir);

// Whether a writer (a running agent, possibly in another container sharing
// the directory) holds the lock now. Probes with a shared lock taken and
// released at once, on the directory and on agent.lock (which is all an
// agent before the directory's lock took).
bool StoreDirHeld(const std::string& data_dir);

}  // namespace gpudoctor
