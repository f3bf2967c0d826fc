// /proc/mounts (and /proc/self/mounts): "SOURCE MOUNTPOINT TYPE OPTIONS 0 0"
// per line, with spaces and other bytes in names escaped as octal (\\040).
// Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct MountEntry {
  std::string source;
  std::string path;
  std::string type;
};

// The mounts in order; malformed lines are skipped.
std::vector<MountEntry> ParseProcMounts(std::string_view text);

// Network and cluster file systems, whose server can stop answering: nfs,
// nfs4, cifs, smb3, lustre, beegfs, ceph, glusterfs, gpfs, 9p, and FUSE
// ones (fuse.s3fs, fuse.juicefs, fuse.gcsfuse, ...; not fuse.portal,
// fuse.gvfsd-fuse or fusectl).
bool IsNetworkFileSystem(std::string_view type);

}  // namespace gpudoctor
