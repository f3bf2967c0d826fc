// Options shared by the commands that print a diagnosis report (diagnose,
// analyze): --format, --output, --lang, --config; and writing the report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/result.h"
#include "render/report.h"

namespace CLI {
class App;
}

namespace gpudoctor {

struct ReportOptions {
  std::string format = "text";  // text | json | markdown | html
  std::string output;           // file; empty: stdout
  std::string lang;             // en | zh; empty: from LC_ALL / LANG
  std::string config;           // --config FILE; empty: /etc/gpudoctor/config.toml when present
  bool no_color = false;        // from the global --no-color
};

void AddReportOptions(CLI::App& cmd, ReportOptions& options);

// --output/-o FILE, checked when the command line is parsed, before any work:
// an existing FILE must be writable and not a directory, a new one's
// directory must exist and be writable; otherwise the command stops at once
// with a one-line error, so that a long run (stress, diagnose) is not lost
// at the end. CannotWriteOutput says why not, nullopt when it can.
void AddOutputOption(CLI::App& cmd, std::string& output, const std::string& help);
std::optional<std::string> CannotWriteOutput(const std::string& path);

// Resolves --lang and --config. Errors are one line naming the option or file.
Result<Lang> ResolveLang(const ReportOptions& options);
Result<Config> ResolveConfig(const ReportOptions& options);

// Renders the report in the chosen format and writes it to --output or
// stdout. Returns the exit code: the verdict's (0/1/2), or 3 when the output
// could not be written (with a one-line error on stderr).
int WriteReport(const ReportContext& report, const ReportOptions& options);
// Writes text to `output` (empty: stdout); returns `code`, or 3 with a
// one-line error when the file cannot be written.
int WriteCommandOutput(const std::string& text, const std::string& output, int code);

}  // namespace gpudoctor
