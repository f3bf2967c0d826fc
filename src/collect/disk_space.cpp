#include "collect/disk_space.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

namespace gpudoctor {

const std::vector<std::string>& DiskSpacePaths() {
  static const std::vector<std::string> paths = {"/", "/tmp", "/dev/shm", "/var/lib/gpudoctor"};
  return paths;
}

DiskSpace DiskSpaceFrom(std::string path, std::uint64_t block_size, std::uint64_t blocks,
                        std::uint64_t blocks_available, std::uint64_t files,
                        std::uint64_t files_free) {
  DiskSpace d;
  d.path = std::move(path);
  d.total_bytes = block_size * blocks;
  d.free_bytes = block_size * blocks_available;  // what an unprivileged writer can use
  if (files > 0) {
    d.inodes_total = files;
    d.inodes_free = files_free;
  }
  return d;
}

DiskSpaceFacts ReadDiskSpace(const CollectContext& ctx) {
  DiskSpaceFacts out;
  if (ctx.root != std::filesystem::path("/")) {
    out.sources.push_back({"statvfs", false, "read on the live root only (not under --root)"});
    return out;
  }
  std::set<unsigned long> seen;  // one entry per file system (f_fsid)
  for (const std::string& path : DiskSpacePaths()) {
    struct statvfs st {};
    if (::statvfs(path.c_str(), &st) != 0) {
      if (errno != ENOENT) out.sources.push_back({path, false, std::strerror(errno)});
      continue;
    }
    out.sources.push_back({path, true, {}});
    if (st.f_blocks == 0 || !seen.insert(st.f_fsid).second) continue;
    out.disks.push_back(
        DiskSpaceFrom(path, st.f_frsize, st.f_blocks, st.f_bavail, st.f_files, st.f_favail));
  }
  return out;
}

}  // namespace gpudoctor
