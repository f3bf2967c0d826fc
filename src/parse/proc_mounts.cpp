#include "parse/proc_mounts.h"

#include "parse/proc_text.h"

namespace gpudoctor {

namespace {
namespace proc_mounts_parse {

std::string Unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
      continue;
    }
    out += s[i];
  }
  return out;
}

}  // namespace proc_mounts_parse
}  // namespace

std::vector<MountEntry> ParseProcMounts(std::string_view text) {
  std::vector<MountEntry> out;
  for (std::string_view line : SplitLines(text)) {
    auto words = SplitWords(line);
    if (words.size() < 3 || words[1].empty() || words[1].front() != '/') continue;
    out.push_back(MountEntry{proc_mounts_parse::Unescape(words[0]),
                             proc_mounts_parse::Unescape(words[1]), std::string(words[2])});
  }
  return out;
}

bool IsNetworkFileSystem(std::string_view type) {
  for (std::string_view t : {"nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "beegfs", "ceph",
                             "glusterfs", "gpfs", "9p", "afs", "ocfs2", "gfs2"}) {
    if (type == t) return true;
  }
  if (type.substr(0, 5) != "fuse.") return false;
  for (std::string_view local : {"fuse.portal", "fuse.gvfsd-fuse", "fuse.lxcfs", "fuse.snapfuse",
                                 "fuse.xdg-document-portal"}) {
    if (type == local) return false;
  }
  return true;
}

}  // namespace gpudoctor
