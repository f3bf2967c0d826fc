// The little terminal control `gpudoctor watch` needs: window size, raw key
// input, the alternate screen, and signals that ask the program to stop. The
// guards restore the terminal when they go out of scope, on every return and
// exception path; a second SIGINT/SIGTERM while a first is still being
// handled restores it from the signal handler and exits at once.
//
// Thread-safety: use from one thread; at most one StopSignals at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string_view>

namespace gpudoctor {

inline constexpr std::string_view kEnterAlternateScreen = "\x1b[?1049h";
inline constexpr std::string_view kLeaveAlternateScreen = "\x1b[?1049l";
inline constexpr std::string_view kHideCursor = "\x1b[?25l";
inline constexpr std::string_view kShowCursor = "\x1b[?25h";
inline constexpr std::string_view kCursorHome = "\x1b[H";
inline constexpr std::string_view kClearToLineEnd = "\x1b[K";
inline constexpr std::string_view kClearToScreenEnd = "\x1b[J";

bool IsTerminal(int fd);
// Whether this process' group is the foreground group of the terminal fd
// (only then may it change the terminal's modes or read keys without being
// stopped by SIGTTOU/SIGTTIN: `timeout 5 gpudoctor watch` runs in a
// background group of the terminal it prints on).
bool IsForegroundOf(int fd);

struct TerminalSize {
  std::size_t columns = 0;
  std::size_t rows = 0;
};

// The window size of the terminal on fd; nullopt when fd is not a terminal or
// the size is unknown (reported as zero).
std::optional<TerminalSize> GetTerminalSize(int fd);

// Writes all of text, retrying short writes and EINTR. False on error.
bool WriteAll(int fd, std::string_view text);

// Puts the terminal on fd in non-canonical, no-echo mode, so single keys can
// be read as they are typed; Ctrl-C still raises SIGINT. Does nothing when fd
// is not a terminal. The destructor restores the saved settings.
class RawInput {
 public:
  explicit RawInput(int fd);
  ~RawInput();
  RawInput(const RawInput&) = delete;
  RawInput& operator=(const RawInput&) = delete;

  bool active() const { return active_; }

 private:
  int fd_;
  bool active_ = false;
};

// Switches the terminal on fd to the alternate screen and hides the cursor;
// the destructor shows the cursor and leaves the alternate screen. Does
// nothing when fd is not a terminal.
class AlternateScreen {
 public:
  explicit AlternateScreen(int fd);
  ~AlternateScreen();
  AlternateScreen(const AlternateScreen&) = delete;
  AlternateScreen& operator=(const AlternateScreen&) = delete;

  bool active() const { return active_; }

 private:
  int fd_;
  bool active_ = false;
};

// While alive, SIGINT, SIGTERM and SIGHUP no longer kill the process: they
// set a flag and wake WaitForEvent. SIGWINCH wakes it too. The destructor
// puts the previous handlers back. Throws std::system_error when the wake-up
// pipe cannot be made.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  bool stop_requested() const;
};

enum class WaitEventKind {
  kTimeout,      // the time ran out
  kKey,          // a byte arrived on the input
  kInputClosed,  // the input reached end of file; stop waiting on it
  kStop,         // SIGINT, SIGTERM or SIGHUP
  kResize,       // SIGWINCH
};

struct WaitEvent {
  WaitEventKind kind = WaitEventKind::kTimeout;
  char key = 0;
};

// Waits up to timeout for one byte on input_fd (not watched when negative),
// a stop signal or a resize. A stop already requested returns kStop at once.
WaitEvent WaitForEvent(const StopSignals& signals, int input_fd,
                       std::chrono::milliseconds timeout);

}  // namespace gpudoctor
