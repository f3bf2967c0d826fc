#include "store/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "core/safe_file.h"

namespace gpudoctor {
namespace store_lock_local {

// The pid agent.lock names, or "unknown".
std::string PidIn(const std::string& path) {
  char buf[32] = {};
  ssize_t n = -1;
  if (auto fd = OpenNoFollow(path, O_RDONLY)) {
    n = pread(*fd, buf, sizeof buf - 1, 0);
    close(*fd);
  }
  std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "unknown";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "unknown" : pid;
}

Error HeldBy(const std::string& path) {
  return Error{ErrorCode::kUnavailable, path + ": another gpudoctor agent (pid " + PidIn(path) +
                                            ") is writing to this store"};
}

// Whether fd is locked by another process now (a shared lock probed).
bool HeldElsewhere(int fd) {
  if (flock(fd, LOCK_SH | LOCK_NB) != 0) return errno == EWOULDBLOCK;
  flock(fd, LOCK_UN);
  return false;
}

}  // namespace store_lock_local
using namespace store_lock_local;

StoreDirLock::~StoreDirLock() {
  if (file_fd_ >= 0) close(file_fd_);
  if (dir_fd_ >= 0) close(dir_fd_);
}

Result<std::unique_ptr<StoreDirLock>> LockStoreDir(const std::string& data_dir) {
  const std::string path = data_dir + "/agent.lock";
  const int dir_fd = open(data_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return ErrnoError(errno, data_dir);
  if (flock(dir_fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    close(dir_fd);
    if (err == EWOULDBLOCK) return HeldBy(path);
    return ErrnoError(err, data_dir);
  }
  auto file = OpenNoFollow(path, O_RDWR | O_CREAT, 0644);
  if (!file) {
    close(dir_fd);
    return file.error();
  }
  const int fd = *file;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    close(fd);
    close(dir_fd);
    if (err == EWOULDBLOCK) return HeldBy(path);
    return ErrnoError(err, path);
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int err = errno;
    close(fd);
    close(dir_fd);
    return ErrnoError(err, path);
  }
  return std::unique_ptr<StoreDirLock>(new StoreDirLock(dir_fd, fd));
}

bool StoreDirHeld(const std::string& data_dir) {
  bool held = false;
  if (const int fd = open(data_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
    held = HeldElsewhere(fd);
    close(fd);
  }
  if (held) return true;
  if (auto fd = OpenNoFollow(data_dir + "/agent.lock", O_RDONLY)) {
    held = HeldElsewhere(*fd);
    close(*fd);
  }
  return held;
}

}  // namespace gpudoctor
