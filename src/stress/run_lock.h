// One stress run at a time per machine: an exclusive flock() on a lock file,
// held for the life of the object (the kernel drops it when the process
// dies, so a killed run leaves no stale lock).
#pragma once

#include <memory>
#include <string>

#include "core/result.h"

namespace gpudoctor {

class StressLock {
 public:
  ~StressLock();
  StressLock(const StressLock&) = delete;
  StressLock& operator=(const StressLock&) = delete;

  // The path: $GPUDOCTOR_STRESS_LOCK, else /run/lock/gpudoctor-stress.lock
  // where /run/lock is writable, else /tmp/gpudoctor-stress.lock.
  static std::string DefaultPath();
  // Errors: kPermission "another gpudoctor stress is running (pid N holds
  // PATH)", or the open failure naming the path.
  static Result<std::unique_ptr<StressLock>> Acquire(const std::string& path);

 private:
  explicit StressLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace gpudoctor
