#include "support/pty_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace gpudoctor::test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::vector<std::string> MergedEnvironment(const PtyOptions& options) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos)
      env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& name : options.unset_env) env.erase(name);
  for (const auto& [name, value] : options.env) env[name] = value;
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

milliseconds Left(Clock::time_point deadline) {
  auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? milliseconds(0) : left;
}

}  // namespace

PtyProcess::PtyProcess(const std::vector<std::string>& argv,
                       const PtyOptions& options) {
  if (argv.empty()) throw std::runtime_error("PtyProcess: no program");
  // Everything the child needs is built before fork, so that the child only
  // calls exec.
  std::vector<std::string> env = MergedEnvironment(options);
  std::vector<char*> argv_c = CStrings(argv);
  std::vector<char*> env_c = CStrings(env);
  winsize size{};
  size.ws_row = options.rows;
  size.ws_col = options.columns;
  pid_ = forkpty(&master_, nullptr, nullptr, &size);
  if (pid_ < 0) {
    throw std::runtime_error(std::string("forkpty: ") + std::strerror(errno));
  }
  if (pid_ == 0) {
    execve(argv_c[0], argv_c.data(), env_c.data());
    std::fprintf(stderr, "exec %s: %s\n", argv_c[0], std::strerror(errno));
    _exit(127);
  }
  fcntl(master_, F_SETFD, FD_CLOEXEC);
}

PtyProcess::~PtyProcess() {
  if (!reaped_ && pid_ > 0) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (master_ >= 0) close(master_);
}

bool PtyProcess::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(master_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool PtyProcess::Signal(int sig) { return !reaped_ && kill(pid_, sig) == 0; }

std::optional<unsigned long> PtyProcess::LocalModeFlags() const {
  termios modes{};
  // On Linux the master reports the settings of its terminal.
  if (tcgetattr(master_, &modes) != 0) return std::nullopt;
  return modes.c_lflag;
}

bool PtyProcess::ReadSome(milliseconds timeout) {
  if (closed_) return false;
  pollfd fd{master_, POLLIN, 0};
  int n = poll(&fd, 1, static_cast<int>(timeout.count()));
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return true;
  char buf[4096];
  ssize_t got = read(master_, buf, sizeof buf);
  if (got > 0) {
    output_.append(buf, static_cast<std::size_t>(got));
    return true;
  }
  if (got < 0 && errno == EINTR) return true;
  // EIO: every process holding the terminal has closed it.
  closed_ = true;
  return false;
}

void PtyProcess::Drain() {
  auto deadline = Clock::now() + milliseconds(500);
  std::size_t before = output_.size() + 1;
  // Stop once a read adds nothing, the terminal closes, or time runs out.
  while (before != output_.size() && Clock::now() < deadline) {
    before = output_.size();
    if (!ReadSome(milliseconds(50))) break;
  }
}

bool PtyProcess::WaitForOutput(std::string_view needle, milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    if (output_.find(needle) != std::string::npos) return true;
    milliseconds left = Left(deadline);
    if (left.count() == 0) return false;
    if (!ReadSome(left)) return output_.find(needle) != std::string::npos;
  }
}

std::optional<PtyExit> PtyProcess::WaitForExit(milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    if (reaped_) return exit_;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      if (WIFEXITED(status)) exit_.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) exit_.signal = WTERMSIG(status);
      Drain();
      return exit_;
    }
    milliseconds left = Left(deadline);
    if (left.count() == 0) return std::nullopt;
    // Keep reading, or the program may block writing to a full terminal.
    if (!ReadSome(std::min(left, milliseconds(50)))) {
      poll(nullptr, 0, 10);
    }
  }
}

}  // namespace gpudoctor::test
