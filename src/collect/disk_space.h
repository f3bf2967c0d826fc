// Free space and inodes of the file systems a GPU job writes to: the root,
// /tmp, /dev/shm (PyTorch's DataLoader passes batches through it) and
// /var/lib/gpudoctor when present. statvfs on the live root only: under
// another --root the numbers would be this machine's, not the captured
// tree's, so nothing is read and the source says why. Never fails.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "collect/mount_probe.h"
#include "facts/host.h"

namespace gpudoctor {

// The paths read, in order.
const std::vector<std::string>& DiskSpacePaths();

// One statvfs result as facts (pure).
DiskSpace DiskSpaceFrom(std::string path, std::uint64_t block_size, std::uint64_t blocks,
                        std::uint64_t blocks_available, std::uint64_t files,
                        std::uint64_t files_free);

// Also the config's dataset mounts (judged for space too) and every network
// file system in /proc/self/mounts (whether it answers), each statvfs in a
// child process given `probe_timeout` (collect/mount_probe.h).
DiskSpaceFacts ReadDiskSpace(const CollectContext& ctx,
                             const std::vector<std::string>& dataset_mounts = {},
                             std::chrono::milliseconds probe_timeout = kMountProbeTimeout);

}  // namespace gpudoctor
