// statvfs of paths that may not answer: a network file system whose server
// is gone blocks the caller, often for good. The calls run in a child
// process; what has not answered within the timeout is reported as such and
// the child is killed (and reaped later, if the kernel holds it meanwhile).
// Paths whose last child is still held are not probed again until it goes:
// they stay unresponsive. Live root only.
#pragma once

#include <sys/statvfs.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

inline constexpr std::chrono::seconds kMountProbeTimeout{5};

struct MountProbeResult {
  std::string path;
  bool answered = false;
  // Not answered within the timeout, now or at an earlier probe whose child
  // the kernel still holds. Neither flag: not probed (fork failed).
  bool timed_out = false;
  int error = 0;  // errno of a failed statvfs
  struct statvfs st {};
};

using StatvfsFunction = int (*)(const char*, struct statvfs*);

// One result per path, in order. A child stats them in order, each given
// `timeout` from the previous answer; when one hangs, the child is killed
// and a new one goes on after it. A path is "not probed" (neither flag)
// only when fork fails or a child dies. `stat` is ::statvfs except in
// tests.
std::vector<MountProbeResult> ProbeMounts(const std::vector<std::string>& paths,
                                          std::chrono::milliseconds timeout,
                                          StatvfsFunction stat = ::statvfs);

}  // namespace gpudoctor
