#include "collect/mount_probe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
  // Keep nothing of the parent's but the pipe (on fd 3): a child the kernel
  // holds must not keep the agent's lock file, store or sockets open.
  if (fd != 3 && ::dup2(fd, 3) != 3) ::_exit(1);
  for (int i = 0; i < 3; ++i) ::close(i);
  rlimit files{};
  const rlim_t max_fd = ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                            ? std::min<rlim_t>(files.rlim_cur, 1 << 20)
                            : 65536;
  if (::syscall(SYS_close_range, 4u, ~0u, 0u) != 0) {
    for (rlim_t i = 4; i < max_fd; ++i) ::close(static_cast<int>(i));
  }
  for (std::size_t i : which) {
    Record r;
    r.index = static_cast<std::uint32_t>(i);
    r.error = stat(paths[i].c_str(), &r.st) == 0 ? 0 : errno;
    if (r.error == 0 && r.st.f_frsize == 0) r.st.f_frsize = r.st.f_bsize;
    if (::write(3, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) ::_exit(1);
  }
  ::_exit(0);
}

enum class Round { kAllAnswered, kHung, kFailed };

// One child over `which`, in order. Each path gets `timeout` from the
// previous answer. On kHung, `*hung` is the path it hangs on.
Round ProbeRound(const std::vector<std::string>& paths, const std::vector<std::size_t>& which,
                 std::chrono::milliseconds timeout, StatvfsFunction stat,
                 std::vector<MountProbeResult>& out, std::size_t* hung) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Round::kFailed;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Round::kFailed;
  }
  if (pid == 0) {
    ::close(fds[0]);
    Child(fds[1], paths, which, stat);
  }
  ::close(fds[1]);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t received = 0;
  bool expired = false;
  Record r;
  std::size_t got = 0;  // bytes of the current record
  while (received < which.size()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      expired = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      expired = true;
      break;
    }
    if (ready < 0) break;
    const ssize_t n = ::read(fds[0], reinterpret_cast<char*>(&r) + got, sizeof r - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child ended
    got += static_cast<std::size_t>(n);
    if (got < sizeof r) continue;
    got = 0;
    ++received;
    deadline = std::chrono::steady_clock::now() + timeout;
    if (r.index >= out.size()) continue;
    MountProbeResult& res = out[r.index];
    res.answered = true;
    res.error = r.error;
    res.st = r.st;
  }
  ::close(fds[0]);
  if (received == which.size()) {
    ::waitpid(pid, nullptr, 0);  // it exits right after its last record
    return Round::kAllAnswered;
  }
  ::kill(pid, SIGKILL);
  // A killable wait ends at once; give the kernel a moment before keeping
  // the child on the list to reap later.
  pid_t reaped = 0;
  for (int i = 0; i < 20 && reaped == 0; ++i) {
    reaped = ::waitpid(pid, nullptr, WNOHANG);
    if (reaped == 0) ::usleep(5000);
  }
  // The child works in order: the first path without an answer is the one
  // it hangs on.
  std::optional<std::size_t> first;
  for (std::size_t i : which) {
    if (!out[i].answered) {
      first = i;
      break;
    }
  }
  if (reaped == 0) {
    Held h{pid, {}};
    if (first) h.paths.insert(paths[*first]);
    std::lock_guard lock(held_mutex);
    held.push_back(std::move(h));
  }
  if (!expired || !first) return Round::kFailed;  // it ended early: not a hang
  *hung = *first;
  return Round::kHung;
}

}  // namespace mount_probe_impl
}  // namespace

std::vector<MountProbeResult> ProbeMounts(const std::vector<std::string>& paths,
                                          std::chrono::milliseconds timeout, StatvfsFunction stat) {
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
  // A round ends at a path that hangs; the next round goes on after it.
  while (!which.empty()) {
    std::size_t hung = 0;
    const auto round = mount_probe_impl::ProbeRound(paths, which, timeout, stat, out, &hung);
    if (round != mount_probe_impl::Round::kHung) break;
    out[hung].timed_out = true;
    auto after = std::find(which.begin(), which.end(), hung);
    which.erase(which.begin(), after + 1);
  }
  return out;
}

}  // namespace gpudoctor
