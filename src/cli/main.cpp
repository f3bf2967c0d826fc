// gpudoctor: finds out why a GPU server stutters or loses GPUs.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string_view>

#include "cli/commands.h"
#include "cli/printable_output.h"
#include "rules/engine/finding.h"

namespace {

// The language of the help's headings: --lang on the command line, else the
// environment's (LANG=zh_CN.UTF-8 gives Chinese), as for the reports.
gpudoctor::Lang HelpLang(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--lang" && i + 1 < argc) {
      if (auto l = gpudoctor::ParseLang(argv[i + 1])) return *l;
    }
    if (arg.substr(0, 7) == "--lang=") {
      if (auto l = gpudoctor::ParseLang(std::string(arg.substr(7)))) return *l;
    }
  }
  return gpudoctor::LangFromEnvironment();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpudoctor;
  // The language of help, errors and progress lines: --lang, else LANG.
  const bool zh = HelpLang(argc, argv) == Lang::kZh;
  // Every command's output and every error message, whatever outside bytes
  // they quote, reaches the screen as printable text (errors in Chinese under zh).
  PrintableOutput printable(zh);
  CLI::App app{"gpudoctor: finds out why a GPU server stutters or loses GPUs, and says what to do"};
  if (zh) {
    app.option_defaults()->group("选项");
    app.get_formatter()->label("Usage", "用法");
    app.get_formatter()->label("OPTIONS", "选项");
    app.get_formatter()->label("SUBCOMMAND", "子命令");
    app.get_formatter()->label("Positionals", "位置参数");
    app.get_formatter()->label("REQUIRED", "必填");
  }
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
  if (zh) {
    if (CLI::Option* help = app.get_help_ptr()) help->group("选项");
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      sub->group("子命令");
      if (CLI::Option* help = sub->get_help_ptr()) help->group("选项");
    }
  }
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
