// gpudoctor: finds out why a GPU server stutters or loses GPUs.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/printable_output.h"

int main(int argc, char** argv) {
  using namespace gpudoctor;
  // Every command's output and every error message, whatever outside bytes
  // they quote, reaches the screen as printable text.
  PrintableOutput printable;
  CLI::App app{"gpudoctor: finds out why a GPU server stutters or loses GPUs, and says what to do"};
  app.set_version_flag("--version", "gpudoctor " GPUDOCTOR_VERSION);
  GlobalOptions global;
  app.add_option("--nvml-library", global.nvml_library,
                 "Path of libnvidia-ml.so.1 (default: $GPUDOCTOR_NVML_LIBRARY, then the system's)");
  app.add_option("--nvml-timeout", global.nvml_timeout,
                 "Longest wait for one driver call before its GPU counts as hung (default 5s)");
  app.add_flag("--no-color", global.no_color, "Never colour the output");
  app.require_subcommand(0, 1);
  app.fallthrough();

  int exit_code = kExitOk;
  RegisterDiagnose(app, global, &exit_code);
  RegisterAnalyze(app, global, &exit_code);
  RegisterReport(app, global, &exit_code);
  RegisterAgent(app, global, &exit_code);
  RegisterStatus(app, global, &exit_code);
  RegisterWatch(app, global, &exit_code);
  RegisterFacts(app, global, &exit_code);
  RegisterFix(app, global, &exit_code);
  RegisterCheck(app, global, &exit_code);
  RegisterStress(app, global, &exit_code);
  RegisterFleet(app, global, &exit_code);
  RegisterRules(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (auto code = AnswerCheckUsageError(argc, argv, e.what())) return *code;
    std::cerr << "gpudoctor: " << e.what() << " (see gpudoctor --help)\n";
    return kExitCannotRun;
  }
  if (app.get_subcommands().empty()) {
    // A bare `gpudoctor` runs the main job.
    return RunDefault(global);
  }
  return exit_code;
}
