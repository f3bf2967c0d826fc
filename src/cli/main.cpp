// gpudoctor: finds out why a GPU server stutters or loses GPUs.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string_view>

#include "cli/commands.h"
#include "cli/printable_output.h"
#include "rules/engine/finding.h"

namespace {

// The --lang anywhere on the command line (a command's own, or the global
// one after any command); the last one wins, as it does for the command's
// report (`gpudoctor --lang zh analyze --lang en` is English throughout);
// nullopt when none names a language.
std::optional<gpudoctor::Lang> CommandLineLang(int argc, char** argv) {
  std::optional<gpudoctor::Lang> lang;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--lang" && i + 1 < argc) {
      if (auto l = gpudoctor::ParseLang(argv[i + 1])) lang = *l;
    }
    if (arg.substr(0, 7) == "--lang=") {
      if (auto l = gpudoctor::ParseLang(std::string(arg.substr(7)))) lang = *l;
    }
  }
  return lang;
}

int Run(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) { return gpudoctor::ExitCodeAfterOutput(Run(argc, argv)); }

namespace {

int Run(int argc, char** argv) {
  using namespace gpudoctor;
  // The language of help, findings, errors and progress lines: --lang, else LANG.
  SetCommandLineLang(CommandLineLang(argc, argv));
  const bool zh = LangFromEnvironment() == Lang::kZh;
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
  // Read above, before parsing (help and errors need it); declared here so
  // that every command takes it: a command's own --lang has the same meaning.
  std::string lang_option;
  app.add_option("--lang", lang_option,
                 "Language of findings, errors and progress lines: en or zh (default: from "
                 "LC_ALL / LANG); every command takes it")
      ->check(CLI::IsMember({"en", "zh"}));
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
  RegisterAck(app, &exit_code);
  RegisterInject(app, &exit_code);
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

}  // namespace
