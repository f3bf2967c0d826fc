#include "store/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace gpudoctor {

Result<int> LockStoreDir(const std::string& data_dir) {
  std::string path = data_dir + "/agent.lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(errno, path);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buf[32] = {};
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    if (err != EWOULDBLOCK) return ErrnoError(err, path);
    std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "unknown";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    return Error{ErrorCode::kUnavailable,
                 path + ": another gpudoctor agent (pid " + pid + ") is writing to this store"};
  }
  std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    int err = errno;
    close(fd);
    return ErrnoError(err, path);
  }
  return fd;
}

bool StoreDirHeld(const std::string& data_dir) {
  const std::string path = data_dir + "/agent.lock";
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool held = false;
  if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
    held = errno == EWOULDBLOCK;
  } else {
    flock(fd, LOCK_UN);
  }
  close(fd);
  return held;
}

}  // namespace gpudoctor
