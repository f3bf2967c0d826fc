// Free space and inodes of the file systems a GPU job writes to: the root,
// /tmp, /dev/shm (PyTorch's DataLoader passes batches through it) and
// /var/lib/gpudoctor when present. statvfs on the live root only: under
// another --root the numbers would be this machine's, not the captured
// tree's, so nothing is read and the source says why. Never fails.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "facts/host.h"

namespace gpudoctor {

// The paths read, in order.
const std::vector<std::string>& DiskSpacePaths();

// One statvfs result as facts (pure).
DiskSpace DiskSpaceFrom(std::string path, std::uint64_t block_size, std::uint64_t blocks,
                        std::uint64_t blocks_available, std::uint64_t files,
                        std::uint64_t files_free);

DiskSpaceFacts ReadDiskSpace(const CollectContext& ctx);

}  // namespace gpudoctor
