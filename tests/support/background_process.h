// A program started in the background for a test (the agent), with its
// output going to files; killed (SIGKILL) and reaped when the object goes
// away, so a failing test never leaves it running.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace gpudoctor::test {

class BackgroundProcess {
 public:
  // Starts argv[0] with our environment plus `env`; stdout and stderr go to
  // `log_path`.
  BackgroundProcess(const std::vector<std::string>& argv,
                    const std::map<std::string, std::string>& env, const std::string& log_path);
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  void Signal(int sig);
  // Waits up to `timeout` for the process to end. Returns its wait status
  // (as waitpid gives it), or -1 when it is still running.
  int Wait(std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

// The gpudoctor binary under test on the fake NVML with `scenario`.
std::vector<std::string> GpudoctorArgv(const std::vector<std::string>& args);
std::map<std::string, std::string> FakeNvmlEnv(const std::string& scenario);

}  // namespace gpudoctor::test
