// Runs a program on a pseudo-terminal for a test, so that it believes it
// talks to a user: keys can be typed into it, its screen output read back,
// and every wait has a time limit. Used by the end-to-end tests of
// `gpudoctor watch`.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::test {

struct PtyOptions {
  std::map<std::string, std::string> env;  // added to (or replacing) ours
  std::vector<std::string> unset_env;
  unsigned short rows = 24;
  unsigned short columns = 80;
};

struct PtyExit {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that ended it, 0 if none
};

class PtyProcess {
 public:
  // Starts argv (argv[0] is a path) on a new pseudo-terminal as the leader
  // of a new session. Throws std::runtime_error when that fails.
  explicit PtyProcess(const std::vector<std::string>& argv,
                      const PtyOptions& options = {});
  // Kills the process group and reaps the process if it is still running.
  ~PtyProcess();
  PtyProcess(const PtyProcess&) = delete;
  PtyProcess& operator=(const PtyProcess&) = delete;

  // Types bytes into the terminal. False on error.
  bool Send(std::string_view bytes);
  // Sends sig to the process. False on error.
  bool Signal(int sig);
  // Reads output until it holds needle or timeout passes; true when found.
  bool WaitForOutput(std::string_view needle,
                     std::chrono::milliseconds timeout);
  // Reads output until the process exits, then what it left in the
  // terminal; nullopt when it is still running after timeout.
  std::optional<PtyExit> WaitForExit(std::chrono::milliseconds timeout);

  // The terminal's local mode flags (termios c_lflag: ECHO, ICANON, ...) as
  // the program left them; nullopt when they cannot be read.
  std::optional<unsigned long> LocalModeFlags() const;

  // Everything the program wrote so far.
  const std::string& output() const { return output_; }
  pid_t pid() const { return pid_; }

 private:
  // Reads what is there within timeout; false once the terminal is closed.
  bool ReadSome(std::chrono::milliseconds timeout);
  void Drain();

  pid_t pid_ = -1;
  int master_ = -1;
  bool reaped_ = false;
  bool closed_ = false;  // the other side of the terminal is gone
  PtyExit exit_;
  std::string output_;
};

}  // namespace gpudoctor::test
