// Runs a program for a test: arguments, extra environment, a time limit.
// Captures stdout and stderr separately. Used by the end-to-end tests to run
// the real gpudoctor binary against the fake NVML.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace gpudoctor::test {

struct ProcessResult {
  int exit_code = -1;      // -1 when killed by a signal
  int signal = 0;          // the signal that ended it, 0 if none
  bool timed_out = false;  // we killed it at the time limit
  std::string out;
  std::string err;
  std::chrono::milliseconds elapsed{0};
};

struct ProcessOptions {
  std::map<std::string, std::string> env;  // added to (or replacing) ours
  std::vector<std::string> unset_env;
  std::chrono::milliseconds timeout{60000};
  std::string stdin_text;
};

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const ProcessOptions& options = {});

// Runs the gpudoctor binary under test with the fake NVML library and the
// given scenario file (empty: no scenario variable).
ProcessResult RunGpudoctor(const std::vector<std::string>& args,
                           const std::string& scenario,
                           ProcessOptions options = {});

}  // namespace gpudoctor::test
