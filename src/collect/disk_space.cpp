#include "collect/disk_space.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "collect/mount_probe.h"
#include "parse/proc_mounts.h"

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

DiskSpaceFacts ReadDiskSpace(const CollectContext& ctx,
                             const std::vector<std::string>& dataset_mounts,
                             std::chrono::milliseconds probe_timeout) {
  DiskSpaceFacts out;
  if (ctx.root != std::filesystem::path("/")) {
    out.sources.push_back({"statvfs", false, "read on the live root only (not under --root)"});
    return out;
  }
  // Space: the fixed paths and the dataset mounts. Answering at all: those
  // and every network file system mounted.
  std::vector<std::string> paths = DiskSpacePaths();
  for (const std::string& d : dataset_mounts) {
    if (std::find(paths.begin(), paths.end(), d) == paths.end()) paths.push_back(d);
  }
  const std::size_t judged = paths.size();
  std::vector<MountEntry> mounts;
  if (auto text = ReadRootFile(ctx, "/proc/self/mounts", 8 << 20); text.ok()) {
    mounts = ParseProcMounts(*text);
  } else {
    out.sources.push_back(StatusOf("/proc/self/mounts", text));
  }
  for (const MountEntry& m : mounts) {
    if (!IsNetworkFileSystem(m.type)) continue;
    ++out.network_mounts;
    if (std::find(paths.begin(), paths.end(), m.path) == paths.end()) paths.push_back(m.path);
  }
  const auto results = ProbeMounts(paths, probe_timeout);
  out.probe_timeout_s = std::chrono::duration<double>(probe_timeout).count();
  std::set<unsigned long> seen;  // one entry per file system (f_fsid)
  for (std::size_t i = 0; i < results.size(); ++i) {
    const MountProbeResult& r = results[i];
    const bool dataset =
        std::find(dataset_mounts.begin(), dataset_mounts.end(), r.path) != dataset_mounts.end();
    if (r.timed_out) {
      UnresponsiveMount u{r.path, "", "", dataset};
      // The innermost mount holding the path names the file system.
      for (const MountEntry& m : mounts) {
        if (r.path == m.path || (r.path.rfind(m.path + "/", 0) == 0) || m.path == "/") {
          u.fs_type = m.type;
          u.source = m.source;
        }
      }
      out.sources.push_back({r.path, false, "statvfs did not answer"});
      out.unresponsive.push_back(std::move(u));
      continue;
    }
    if (!r.answered) {
      out.sources.push_back({r.path, false, "not probed: the probe could not run"});
      continue;
    }
    if (r.error != 0) {
      if (r.error != ENOENT || dataset) {
        out.sources.push_back({r.path, false, std::strerror(r.error)});
      }
      continue;
    }
    out.sources.push_back({r.path, true, {}});
    if (i >= judged || r.st.f_blocks == 0 || !seen.insert(r.st.f_fsid).second) continue;
    out.disks.push_back(DiskSpaceFrom(r.path, r.st.f_frsize, r.st.f_blocks, r.st.f_bavail,
                                      r.st.f_files, r.st.f_favail));
  }
  return out;
}

}  // namespace gpudoctor
