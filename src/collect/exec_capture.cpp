#include "collect/exec_capture.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

extern char** environ;

namespace gpudoctor {
namespace {

int DecodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int WaitChild(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return DecodeStatus(status);
}

// Waits for the child until the deadline; false when it is still running.
bool WaitChildUntil(pid_t pid, std::chrono::steady_clock::time_point deadline, int* exit_status) {
  while (true) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      *exit_status = DecodeStatus(status);
      return true;
    }
    if (r < 0 && errno != EINTR) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    ::usleep(5000);
  }
}

}  // namespace

Result<ExecOutput> ExecCapture(const std::vector<std::string>& argv,
                               std::chrono::milliseconds timeout, std::size_t max_output) {
  if (argv.empty()) return Error{ErrorCode::kInvalid, "exec: empty command"};
  const std::string& name = argv.front();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoError(errno, "exec " + name + ": pipe");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, name.c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return ErrnoError(rc, "exec " + name);
  }

  ExecOutput out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  char buf[4096];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int pr = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) {
      timed_out = true;
      break;
    }
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child (and anything it started) closed the pipe
    if (out.output.size() < max_output) {
      out.output.append(
          buf, std::min<std::size_t>(static_cast<std::size_t>(n), max_output - out.output.size()));
    }
  }
  ::close(fds[0]);
  // A child that closed its output may still be running.
  if (!timed_out && !WaitChildUntil(pid, deadline, &out.exit_status)) timed_out = true;
  if (timed_out) {
    ::kill(pid, SIGKILL);
    WaitChild(pid);
    return Error{ErrorCode::kTimeout,
                 "exec " + name + ": no exit after " + std::to_string(timeout.count()) + " ms"};
  }
  // posix_spawnp reports a missing program as exit 127 from the child.
  if (out.exit_status == 127 && out.output.empty()) {
    return Error{ErrorCode::kNotFound, "exec " + name + ": not found"};
  }
  return out;
}

}  // namespace gpudoctor
