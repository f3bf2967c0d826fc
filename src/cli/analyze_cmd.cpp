// gpudoctor analyze FILE...: diagnosis offline, without a GPU, from
// nvidia-bug-report.log(.gz), nvidia-smi -q -x / -q dumps and kernel logs.
#include <CLI/CLI.hpp>
#include <iostream>

#include "analyze/analyze_input.h"
#include "cli/commands.h"
#include "cli/report_options.h"
#include "diagnosis/diagnose_window.h"

namespace gpudoctor {
namespace {

struct AnalyzeOptions {
  std::vector<std::string> files;
  ReportOptions report;
};

int RunAnalyze(const AnalyzeOptions& opts, const GlobalOptions& global) {
  auto config = ResolveConfig(opts.report);
  if (!config) {
    std::cerr << "gpudoctor: " << config.error().message << "\n";
    return kExitCannotRun;
  }
  auto lang = ResolveLang(opts.report);
  if (!lang) {
    std::cerr << "gpudoctor: " << lang.error().message << "\n";
    return kExitCannotRun;
  }
  AnalyzeResult analyzed = AnalyzeFiles(opts.files, *config);
  analyzed.input.config = *config;
  std::size_t usable = 0;
  ReportContext report;
  for (const AnalyzedFile& f : analyzed.files) {
    if (f.ok) {
      ++usable;
    } else {
      std::cerr << "gpudoctor: " << f.error << "\n";
    }
    for (const std::string& note : f.notes) std::cerr << "gpudoctor: " << f.path << ": " << note << "\n";
    report.files.push_back(ReportInputFile{f.path, InputKindName(f.kind), f.ok, f.error, f.notes});
  }
  if (usable == 0) {
    std::cerr << "gpudoctor: none of the given files could be analysed\n";
    return kExitCannotRun;
  }
  auto diagnosed = DiagnoseWindow(analyzed.input, DiagnosisRequest{});
  if (!diagnosed) {
    std::cerr << "gpudoctor: " << diagnosed.error().message << "\n";
    return kExitCannotRun;
  }
  Diagnosis diagnosis = std::move(*diagnosed);
  report.input = &analyzed.input;
  report.diagnosis = &diagnosis;
  report.generated_at = std::chrono::system_clock::now();
  report.lang = *lang;
  report.command = "analyze";
  ReportOptions out = opts.report;
  out.no_color = global.no_color;
  return WriteReport(report, out);
}

}  // namespace

void RegisterAnalyze(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto opts = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyze", "Diagnose offline from files, no GPU needed: nvidia-bug-report.log(.gz), "
                 "nvidia-smi -q -x or -q output, kernel logs and journals (kind found from content)");
  cmd->add_option("files", opts->files,
                  "Files to analyse (any mix; `-` is standard input; gzip, xz, bzip2, zstd and "
                  "tar, zip archives are read)")
      ->required();
  AddReportOptions(*cmd, opts->report);
  cmd->callback([opts, &global, exit_code] { *exit_code = RunAnalyze(*opts, global); });
}

}  // namespace gpudoctor
