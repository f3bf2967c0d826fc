#include "core/terminal.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>
#include <system_error>

namespace gpudoctor {
namespace {

// A signal handler can reach only globals, so what the handlers need lives
// here: the stop and resize flags, the wake-up pipe, and what to undo if the
// user insists on stopping while the program is busy.
volatile std::sig_atomic_t g_stop_requested = 0;
volatile std::sig_atomic_t g_resized = 0;
volatile std::sig_atomic_t g_wake_fd = -1;
volatile std::sig_atomic_t g_raw_fd = -1;
volatile std::sig_atomic_t g_screen_fd = -1;
termios g_saved_termios{};

// Only async-signal-safe calls (write, tcsetattr) from here on.
void RestoreFromHandler() {
  if (g_screen_fd >= 0) {
    constexpr char kRestore[] = "\x1b[?25h\x1b[?1049l";
    ssize_t ignored = write(g_screen_fd, kRestore, sizeof kRestore - 1);
    (void)ignored;
  }
  if (g_raw_fd >= 0) tcsetattr(g_raw_fd, TCSANOW, &g_saved_termios);
}

void OnSignal(int sig) {
  int saved_errno = errno;
  if (sig == SIGWINCH) {
    g_resized = 1;
  } else if (g_stop_requested) {
    // A second stop while the first has not been acted on yet: the program
    // is stuck (e.g. in a driver call), so undo the terminal and leave now.
    RestoreFromHandler();
    _exit(128 + sig);
  } else {
    g_stop_requested = 1;
  }
  if (g_wake_fd >= 0) {
    char byte = 0;
    ssize_t ignored = write(g_wake_fd, &byte, 1);
    (void)ignored;
  }
  errno = saved_errno;
}

int g_wake_read_fd = -1;
struct sigaction g_previous[4];
constexpr int kAllSignals[4] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH};

void DrainWakePipe() {
  char buf[64];
  while (read(g_wake_read_fd, buf, sizeof buf) > 0) {
  }
}

}  // namespace

bool IsTerminal(int fd) { return isatty(fd) == 1; }

bool IsForegroundOf(int fd) {
  const pid_t group = tcgetpgrp(fd);
  return group >= 0 && group == getpgrp();
}

std::optional<TerminalSize> GetTerminalSize(int fd) {
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return std::nullopt;
  return TerminalSize{ws.ws_col, ws.ws_row};
}

bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

RawInput::RawInput(int fd) : fd_(fd) {
  termios saved{};
  if (!IsTerminal(fd) || tcgetattr(fd, &saved) != 0) return;
  termios raw = saved;
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  g_saved_termios = saved;
  if (tcsetattr(fd, TCSANOW, &raw) != 0) return;
  g_raw_fd = fd;
  active_ = true;
}

RawInput::~RawInput() {
  if (!active_) return;
  tcsetattr(fd_, TCSANOW, &g_saved_termios);
  g_raw_fd = -1;
}

AlternateScreen::AlternateScreen(int fd) : fd_(fd) {
  if (!IsTerminal(fd)) return;
  std::string text(kEnterAlternateScreen);
  text += kHideCursor;
  WriteAll(fd, text);
  g_screen_fd = fd;
  active_ = true;
}

AlternateScreen::~AlternateScreen() {
  if (!active_) return;
  std::string text(kShowCursor);
  text += kLeaveAlternateScreen;
  WriteAll(fd_, text);
  g_screen_fd = -1;
}

StopSignals::StopSignals() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe2");
  }
  g_wake_read_fd = fds[0];
  g_wake_fd = fds[1];
  g_stop_requested = 0;
  g_resized = 0;
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: poll() must wake with EINTR
  for (int i = 0; i < 4; ++i)
    sigaction(kAllSignals[i], &action, &g_previous[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 4; ++i)
    sigaction(kAllSignals[i], &g_previous[i], nullptr);
  int write_fd = g_wake_fd;
  g_wake_fd = -1;
  close(write_fd);
  close(g_wake_read_fd);
  g_wake_read_fd = -1;
}

bool StopSignals::stop_requested() const { return g_stop_requested != 0; }

WaitEvent WaitForEvent(const StopSignals& signals, int input_fd,
                       std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + timeout;
  for (;;) {
    if (signals.stop_requested()) return {WaitEventKind::kStop};
    if (g_resized) {
      g_resized = 0;
      return {WaitEventKind::kResize};
    }
    auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return {WaitEventKind::kTimeout};
    int wait_ms = left.count() > 60000 ? 60000 : static_cast<int>(left.count());
    pollfd fds[2] = {{g_wake_read_fd, POLLIN, 0}, {input_fd, POLLIN, 0}};
    int n = poll(fds, input_fd >= 0 ? 2 : 1, wait_ms);
    if (n <= 0) continue;  // timeout slice, or EINTR: recheck the flags
    if (fds[0].revents != 0) DrainWakePipe();
    if (input_fd < 0 || fds[1].revents == 0) continue;
    char key = 0;
    ssize_t got = read(input_fd, &key, 1);
    if (got == 1) return {WaitEventKind::kKey, key};
    if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      return {WaitEventKind::kInputClosed};
    }
  }
}

}  // namespace gpudoctor
