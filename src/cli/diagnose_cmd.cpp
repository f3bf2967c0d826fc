// gpudoctor diagnose (also a bare `gpudoctor`): samples every GPU for
// --duration while collecting the host, PCI, versions, network and kernel-log
// evidence, runs every rule and prints the report.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/live_diagnosis.h"
#include "cli/nvml_options.h"
#include "cli/report_options.h"
#include "core/terminal.h"

namespace gpudoctor {
namespace {

struct DiagnoseOptions {
  LiveDiagnosisOptions sampling;
  ReportOptions report;
};

int RunDiagnose(const DiagnoseOptions& opts, const GlobalOptions& global) {
  auto nvml = MakeNvmlOptions(global);
  auto plan = nvml ? MakeLiveDiagnosisPlan(opts.sampling, opts.report)
                   : Result<LiveDiagnosisPlan>(nvml.error());
  if (!plan) {
    std::cerr << "gpudoctor: " << plan.error().message << "\n";
    return kExitCannotRun;
  }
  plan->nvml_library = nvml->library_path;
  plan->fold_across_gpus = true;
  auto session = NvmlSession::Open(*nvml);
  // Ctrl-C ends the sampling early, and the diagnosis of what was sampled so
  // far is still printed, marked interrupted (a second Ctrl-C exits at once).
  StopSignals signals;
  LiveDiagnosis live = RunLiveDiagnosis(*session, *plan, IsTerminal(STDERR_FILENO), &signals);
  if (live.nothing_to_diagnose) {
    std::cerr << "gpudoctor: no NVIDIA GPU or driver found on this machine (" << live.nvml_error
              << "); nothing to diagnose. To read files from another machine: gpudoctor analyze FILE...\n";
    ExitAfterSession(*session, kExitCannotRun);
  }

  ReportContext report;
  report.input = &live.input;
  report.diagnosis = &live.diagnosis;
  report.generated_at = std::chrono::system_clock::now();
  report.lang = plan->lang;
  report.command = "diagnose";
  report.interrupted = live.interrupted;
  ReportOptions out = opts.report;
  out.no_color = global.no_color;
  ExitAfterSession(*session, WriteReport(report, out));
}

}  // namespace

int RunDefault(const GlobalOptions& global) { return RunDiagnose(DiagnoseOptions{}, global); }

void RegisterDiagnose(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto opts = std::make_shared<DiagnoseOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diagnose", "Sample every GPU and the host, read the kernel log, run every rule and say what "
                  "is wrong, on which GPU, why, and what to do (what a bare `gpudoctor` runs)");
  cmd->add_option("--duration", opts->sampling.duration, "How long to sample (500ms, 10s, 5m, ...)")
      ->capture_default_str();
  cmd->add_option("--interval", opts->sampling.interval, "Time between two samples")->capture_default_str()
      ->each([given = &opts->sampling.interval_given](const std::string&) { *given = true; });
  cmd->add_option("--since", opts->sampling.since, "Kernel log / journal window (e.g. 2h, 7d)")
      ->capture_default_str();
  AddReportOptions(*cmd, opts->report);
  cmd->add_option("--root", opts->sampling.root, "Read /proc, /sys, /var/log below this directory")
      ->capture_default_str();
  cmd->add_option("--expected-gpus", opts->sampling.expected_gpus,
                  "GPUs this machine should have, 1-1024 (overrides [gpus] expected_count)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--kernel-log", opts->sampling.kernel_logs, "Also read this kernel log file (.gz too)");
  cmd->add_option("--ping", opts->sampling.pings,
                  "Measure latency and loss to HOST or HOST:PORT (repeatable; overrides [network] ping)");
  cmd->add_option("--python-env", opts->sampling.python_envs, "Also look for frameworks in this environment");
  cmd->callback([opts, &global, exit_code] { *exit_code = RunDiagnose(*opts, global); });
}

}  // namespace gpudoctor
