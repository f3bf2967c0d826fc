#include "cli/report_options.h"

#include "core/safe_file.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/terminal.h"
#include "render/wrap_text.h"
#include "core/json_dump.h"
#include "core/utf8.h"
#include "render/ansi.h"
#include "render/report_html.h"
#include "render/report_json.h"
#include "render/report_text.h"

namespace gpudoctor {

std::optional<std::string> CannotWriteOutput(const std::string& path) {
  if (path.empty()) return "empty path";
  std::error_code ec;
  const std::filesystem::path p(path);
  const auto status = std::filesystem::status(p, ec);
  if (std::filesystem::exists(status)) {
    if (std::filesystem::is_directory(status)) return "is a directory";
    if (::access(path.c_str(), W_OK) != 0) return std::string("cannot write: ") + std::strerror(errno);
    return std::nullopt;
  }
  // The file is made when the work is done: its directory must exist and
  // take new files now, so that the work is not lost then.
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec)) {
    return "cannot write: directory " + dir.string() + " does not exist";
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return "cannot write in " + dir.string() + ": " + std::strerror(errno);
  }
  return std::nullopt;
}

void AddOutputOption(CLI::App& cmd, std::string& output, const std::string& help) {
  cmd.add_option("--output,-o", output, help)
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            auto why = CannotWriteOutput(path);
            return why ? path + ": " + *why : std::string();
          },
          "FILE"));
}

void AddReportOptions(CLI::App& cmd, ReportOptions& options) {
  cmd.add_option("--format", options.format,
                 "Report format: text, json (gpudoctor.report/v1), markdown or html (one "
                 "self-contained page)")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}))
      ->capture_default_str();
  AddOutputOption(cmd, options.output, "Write the report to FILE instead of standard output");
  cmd.add_option("--lang", options.lang,
                 "Language of the report: en or zh (default: from LC_ALL / LANG)")
      ->check(CLI::IsMember({"en", "zh"}));
  cmd.add_option("--config", options.config,
                 "TOML configuration file (default: /etc/gpudoctor/config.toml when it exists)");
}

Result<Lang> ResolveLang(const ReportOptions& options) {
  if (options.lang.empty()) return LangFromEnvironment();
  auto lang = ParseLang(options.lang);
  if (!lang) return Error{ErrorCode::kInvalid, "--lang " + options.lang + ": expected en or zh"};
  return *lang;
}

Result<Config> ResolveConfig(const ReportOptions& options) {
  std::optional<std::string> path;
  if (!options.config.empty()) path = options.config;
  return LoadConfig(path);
}

int WriteReport(const ReportContext& report, const ReportOptions& options) {
  std::string text;
  if (options.format == "json") {
    text = DumpJson(ReportToJson(report), 2) + "\n";
  } else if (options.format == "markdown") {
    text = ReportToMarkdown(report);
  } else if (options.format == "html") {
    text = ReportToHtml(report);
  } else {
    bool color = !options.no_color && options.output.empty() && ShouldUseColor(STDOUT_FILENO);
    text = ReportToText(report, color);
    // On a terminal, long lines break between words with hanging indents
    // instead of where the terminal cuts them.
    if (options.output.empty()) {
      if (auto size = GetTerminalSize(STDOUT_FILENO)) text = WrapToWidth(text, size->columns);
    }
  }
  return WriteCommandOutput(text, options.output, ExitCodeFor(report.diagnosis->verdict));
}

int WriteCommandOutput(const std::string& text, const std::string& output, int code) {
  if (output.empty()) {
    std::cout << text << std::flush;
    return code;
  }
  // What standard output gets too (PrintableOutput); a temporary file
  // renamed over the old one, so that a failed write keeps what was there.
  if (auto written = WriteOutputFile(output, ToPrintableText(text)); !written) {
    std::cerr << "gpudoctor: " << written.error().message << "\n";
    return kExitCannotRun;
  }
  return code;
}

}  // namespace gpudoctor
