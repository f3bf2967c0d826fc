#include "collect/mount_probe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>

namespace gpudoctor {

namespace {
namespace mount_probe_impl {

// What one child sends per path: its index, errno (0: answered) and the
// statvfs result.
struct Record {
  std::uint32_t index = 0;
  std::int32_t error = 0;
  struct statvfs st {};
};

struct Held {
  pid_t pid;
  std::set<std::string> paths;
};

std::mutex held_mutex;
std::vector<Held> held;  // children killed at a timeout and not yet reaped

// Reaps the children that have gone; returns the paths still held.
std::set<std::string> ReapHeld() {
  std::lock_guard lock(held_mutex);
  std::set<std::string> still;
  for (auto it = held.begin(); it != held.end();) {
    if (::waitpid(it->pid, nullptr, WNOHANG) != 0) {
      it = held.erase(it);
      continue;
    }
    still.insert(it->paths.begin(), it->paths.end());
    ++it;
  }
  return still;
}

[[noreturn]] void Child(int fd, const std::vector<std::string>& paths,
                        const std::vector<std::size_t>& which, StatvfsFunction stat) {
  for (std::size_t i : which) {
    Record r;
    r.index = static_cast<std::uint32_t>(i);
    r.error = stat(paths[i].c_str(), &r.st) == 0 ? 0 : errno;
    if (r.error == 0 && r.st.f_frsize == 0) r.st.f_frsize = r.st.f_bsize;
    if (::write(fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) ::_exit(1);
  }
  ::_exit(0);
}

}  // namespace mount_probe_impl
}  // namespace

std::vector<MountProbeResult> ProbeMounts(const std::vector<std::string>& paths,
                                          std::chrono::milliseconds timeout, StatvfsFunction stat) {
  using mount_probe_impl::Record;
  std::vector<MountProbeResult> out(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) out[i].path = paths[i];
  const std::set<std::string> still_held = mount_probe_impl::ReapHeld();
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (still_held.contains(paths[i])) {
      out[i].timed_out = true;
    } else {
      which.push_back(i);
    }
  }
  if (which.empty()) return out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return out;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  if (pid == 0) {
    ::close(fds[0]);
    mount_probe_impl::Child(fds[1], paths, which, stat);
  }
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t received = 0;
  Record r;
  std::size_t got = 0;  // bytes of the current record
  while (received < which.size()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    const ssize_t n = ::read(fds[0], reinterpret_cast<char*>(&r) + got, sizeof r - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child ended
    got += static_cast<std::size_t>(n);
    if (got < sizeof r) continue;
    got = 0;
    ++received;
    if (r.index >= out.size()) continue;
    MountProbeResult& res = out[r.index];
    res.answered = true;
    res.error = r.error;
    res.st = r.st;
  }
  ::close(fds[0]);
  if (received == which.size()) {
    ::waitpid(pid, nullptr, 0);  // it exits right after its last record
    return out;
  }
  // The child works in order: the first path without an answer is the one
  // it hangs on; the ones after it were not reached.
  std::optional<std::size_t> hung;
  for (std::size_t i : which) {
    if (!out[i].answered) {
      hung = i;
      break;
    }
  }
  if (hung) out[*hung].timed_out = true;
  ::kill(pid, SIGKILL);
  // A killable wait ends at once; give the kernel a moment before keeping
  // the child on the list to reap later.
  pid_t reaped = 0;
  for (int i = 0; i < 20 && reaped == 0; ++i) {
    reaped = ::waitpid(pid, nullptr, WNOHANG);
    if (reaped == 0) ::usleep(5000);
  }
  if (reaped == 0) {
    mount_probe_impl::Held h{pid, {}};
    if (hung) h.paths.insert(paths[*hung]);
    std::lock_guard lock(mount_probe_impl::held_mutex);
    mount_probe_impl::held.push_back(std::move(h));
  }
  return out;
}

}  // namespace gpudoctor
