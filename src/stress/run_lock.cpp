#include "stress/run_lock.h"

#include "core/safe_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace gpudoctor {

StressLock::~StressLock() {
  if (fd_ >= 0) close(fd_);
}

std::string StressLock::DefaultPath() {
  if (const char* env = std::getenv("GPUDOCTOR_STRESS_LOCK"); env != nullptr && *env != '\0') {
    return env;
  }
  if (access("/run/lock", W_OK) == 0) return "/run/lock/gpudoctor-stress.lock";
  return "/tmp/gpudoctor-stress.lock";
}

Result<std::unique_ptr<StressLock>> StressLock::Acquire(const std::string& path) {
  // Never through a symbolic link: /tmp's lock could be a link planted by
  // another user, and this runs as root.
  auto opened = OpenNoFollow(path, O_RDWR | O_CREAT, 0644);
  if (!opened) return Error{opened.error().code, "cannot open the stress lock: " + opened.error().message};
  const int fd = *opened;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char holder[32] = {};
    ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
    close(fd);
    if (err == EWOULDBLOCK) {
      std::string pid = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "";
      while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      return Error{ErrorCode::kPermission, "another gpudoctor stress is running (" +
                                               (pid.empty() ? "" : "pid " + pid + " holds ") + path +
                                               "); one stress run at a time per machine"};
    }
    return ErrnoError(err, "cannot lock " + path);
  }
  std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) == 0) {
    ssize_t written = pwrite(fd, pid.data(), pid.size(), 0);
    (void)written;  // the pid is a courtesy for the message above
  }
  return std::unique_ptr<StressLock>(new StressLock(fd));
}

}  // namespace gpudoctor
