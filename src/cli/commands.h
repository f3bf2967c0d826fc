// Subcommands. Each file in src/cli/ adds one subcommand to the CLI11 app;
// main() only wires them together. Exit codes: 0 ok, 1 warning/degraded,
// 2 critical, 3 could not run.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace gpudoctor {

constexpr int kExitOk = 0;
constexpr int kExitWarning = 1;
constexpr int kExitCritical = 2;
constexpr int kExitCannotRun = 3;

struct GlobalOptions {
  std::string nvml_library;       // --nvml-library
  std::string nvml_timeout = "5s";  // --nvml-timeout
  bool no_color = false;          // --no-color
};

// Each Register* adds a subcommand whose callback stores its exit code in
// *exit_code.
void RegisterStatus(CLI::App& app, const GlobalOptions& global, int* exit_code);
// What a bare `gpudoctor` runs: diagnose with its defaults.
int RunDefault(const GlobalOptions& global);
void RegisterDiagnose(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterAnalyze(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterRules(CLI::App& app, int* exit_code);
void RegisterWatch(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterFacts(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterAgent(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterReport(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterFix(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterCheck(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterStress(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterFleet(CLI::App& app, const GlobalOptions& global, int* exit_code);
void RegisterAck(CLI::App& app, int* exit_code);
void RegisterInject(CLI::App& app, int* exit_code);
// A command line that CLI11 could not parse, for `check --npd` or `check
// --slurm`: answers in that protocol (one line on stdout, exit 2 "unknown")
// and returns the exit code; nothing for any other command line.
std::optional<int> AnswerCheckUsageError(int argc, char** argv, const std::string& message);

}  // namespace gpudoctor
