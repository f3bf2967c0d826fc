#include "core/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace gpudoctor {
namespace safe_file_local {

mode_t CurrentUmask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

// One directory's ownership and mode against the rule: owned by root or
// euid; writable by nobody else unless sticky (for the data directory
// itself, a sticky bit does not help: its files are ours to guard).
std::string WhatIsWrong(const struct stat& st, bool is_the_dir) {
  const uid_t me = ::geteuid();
  if (st.st_uid != me && st.st_uid != 0) {
    return "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(me) + ") or root";
  }
  if (is_the_dir && st.st_uid != me) {
    return "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(me) + ")";
  }
  const bool sticky = !is_the_dir && (st.st_mode & S_ISVTX) != 0;
  if (sticky) return {};
  if ((st.st_mode & S_IWOTH) != 0) return "writable by every user";
  if ((st.st_mode & S_IWGRP) != 0 && st.st_gid != 0) {
    return "writable by group " + std::to_string(st.st_gid);
  }
  return {};
}

}  // namespace safe_file_local
using namespace safe_file_local;

Result<int> OpenNoFollow(const std::string& path, int flags, mode_t mode) {
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd >= 0) return fd;
  const int err = errno;
  struct stat st {};
  if (err == ELOOP && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return Error{ErrorCode::kPermission,
                 path +
                     ": is a symbolic link; refusing to follow it (remove it, or check "
                     "who else can write to its directory)"};
  }
  return ErrnoError(err, path);
}

Status WriteAllTo(int fd, std::string_view bytes, const std::string& what) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "cannot write " + what);
    }
    if (n == 0) return ErrnoError(ENOSPC, "cannot write " + what);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return OkStatus();
}

Status ReplaceFile(const std::string& path, std::string_view bytes, mode_t mode) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return Error{ErrorCode::kPermission,
                 path + ": is a symbolic link; refusing to write through it"};
  }
  // mkostemp: a new name, O_CREAT | O_EXCL, mode 0600, never a link.
  std::string tmp = path + ".XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return ErrnoError(errno, "cannot create a temporary file beside " + path);
  Status written = WriteAllTo(fd, bytes, path);
  if (written && ::fchmod(fd, mode) != 0) written = ErrnoError(errno, "cannot write " + path);
  if (written && ::fsync(fd) != 0) written = ErrnoError(errno, "cannot write " + path);
  if (::close(fd) != 0 && written) written = ErrnoError(errno, "cannot write " + path);
  if (written && ::rename(tmp.c_str(), path.c_str()) != 0) {
    written = ErrnoError(errno, "cannot write " + path);
  }
  if (!written) ::unlink(tmp.c_str());
  return written;
}

Status WriteOutputFile(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string target = path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    // The operator named the link: write where it leads.
    const fs::path resolved = fs::weakly_canonical(path, ec);
    if (ec) return Error{ErrorCode::kIo, "cannot write " + path + ": " + ec.message()};
    target = resolved.string();
  }
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return ErrnoError(EISDIR, "cannot write " + path);
    // A device or a pipe: written in place (renaming over /dev/stdout
    // would replace the device).
    const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoError(errno, "cannot write " + path);
    Status written = WriteAllTo(fd, bytes, path);
    if (::close(fd) != 0 && written) written = ErrnoError(errno, "cannot write " + path);
    return written;
  }
  const bool exists = ::stat(target.c_str(), &st) == 0;
  const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~CurrentUmask());
  return ReplaceFile(target, bytes, mode);
}

Status CheckPrivateDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path real = fs::canonical(dir, ec);
  if (ec) return Error{ErrorCode::kIo, dir + ": " + ec.message()};
  bool first = true;
  for (fs::path p = real;; p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return ErrnoError(errno, p.string());
    if (const std::string wrong = WhatIsWrong(st, first); !wrong.empty()) {
      const std::string named =
          first ? "the data directory " + dir + (p.string() != dir ? " (" + p.string() + ")" : "")
                : "the data directory " + dir + "'s parent " + p.string();
      return Error{ErrorCode::kPermission, named + " is " + wrong +
                                               ", so another user could "
                                               "replace what gpudoctor records there"};
    }
    first = false;
    if (p == p.root_path() || p.parent_path() == p) break;
  }
  return OkStatus();
}

}  // namespace gpudoctor
