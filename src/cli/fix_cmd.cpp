// gpudoctor fix: from a diagnosis (live, or --from-report FILE), the plan of
// steps that address its findings; with --apply (as root, after a
// confirmation or --yes) applies the safe ones through NVML, records each
// change in the audit log, diagnoses again and reports what changed.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/fix_reset.h"
#include "cli/live_diagnosis.h"
#include "cli/nvml_options.h"
#include "core/data_dir.h"
#include "core/terminal.h"
#include "fix/apply.h"
#include "fix/audit_log.h"
#include "fix/plan.h"
#include "fix/plan_text.h"
#include "fix/report_findings.h"
#include "status/gpu_selector.h"

namespace gpudoctor {
namespace {

struct FixOptions {
  LiveDiagnosisOptions sampling;
  ReportOptions report;  // --format, --lang, --config
  bool apply = false;
  bool yes = false;
  bool force = false;
  std::string from_report;
  std::vector<std::string> gpus;
  std::string power_limit;
  std::string data_dir;
  bool allow_shared_data_dir = false;
  std::string reset_gpu;
};

// The re-diagnosis after applying: the settings fix changes are read in one
// sample; a couple of seconds is enough.
constexpr std::chrono::milliseconds kRecheckDuration{2000};

Result<std::optional<double>> PowerLimitOption(const std::string& text) {
  if (text.empty()) return std::optional<double>();
  char* end = nullptr;
  double w = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(w) || w <= 0) {
    return Error{ErrorCode::kInvalid, "--power-limit " + text + ": not a number of watts above 0"};
  }
  return std::optional<double>(w);
}

std::string Hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

// The GPUs' state now and the findings the plan addresses.
struct Diagnosed {
  std::vector<GpuStatus> gpus;
  std::vector<Finding> findings;
};

std::vector<GpuStatus> LatestGpus(const DiagnosisInput& input) {
  std::vector<GpuStatus> gpus;
  for (const GpuSeries& s : input.gpus) gpus.push_back(s.latest());
  return gpus;
}

Result<Diagnosed> DiagnoseForFix(NvmlSession& session, const FixOptions& o,
                                 const LiveDiagnosisPlan& plan) {
  Diagnosed d;
  if (!o.from_report.empty()) {
    auto findings = ReadReportFindings(o.from_report);
    if (!findings) return findings.error();
    SystemStatus now = session.Sample();
    if (!now.nvml_loaded) {
      return Error{ErrorCode::kUnavailable,
                   "fix needs the GPUs' state now from NVML: " + now.nvml_error};
    }
    d.findings = std::move(*findings);
    d.gpus = std::move(now.gpus);
    return d;
  }
  LiveDiagnosis live = RunLiveDiagnosis(session, plan, IsTerminal(STDERR_FILENO));
  if (live.nothing_to_diagnose) {
    return Error{ErrorCode::kUnavailable, "no NVIDIA GPU or driver found on this machine (" +
                                              live.nvml_error + "); nothing to fix"};
  }
  d.findings = std::move(live.diagnosis.findings);
  d.gpus = LatestGpus(live.input);
  return d;
}

Result<PlanOptions> MakePlanOptions(const FixOptions& o, const std::vector<GpuStatus>& gpus) {
  PlanOptions p;
  p.force = o.force;
  auto limit = PowerLimitOption(o.power_limit);
  if (!limit) return limit.error();
  p.power_limit_w = *limit;
  if (!o.gpus.empty()) {
    SystemStatus status;
    status.gpus = gpus;
    auto picked = SelectGpus(status, o.gpus);
    if (!picked) return picked.error();
    for (std::size_t i : *picked) p.gpus.push_back(gpus[i].pci_bus_id);
  }
  return p;
}

std::string Render(const FixView& view, const FixOptions& o) {
  return o.report.format == "json" ? FixToJson(view) : FixToText(view);
}

// Asks on stderr, reads stdin: true for "y" or "yes".
bool Confirm(std::size_t n, Lang lang) {
  std::cerr << (lang == Lang::kZh ? "执行 " + std::to_string(n) + " 个步骤？[y/N] "
                                  : "Apply " + std::to_string(n) + " step(s)? [y/N] ")
            << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  while (!answer.empty() && std::isspace(static_cast<unsigned char>(answer.back())))
    answer.pop_back();
  return answer == "y" || answer == "Y" || answer == "yes" || answer == "YES" || answer == "Yes";
}

[[noreturn]] void Leave(const NvmlSession& session, const NvmlControl* control, int code) {
  if (control != nullptr && control->HasAbandonedCalls()) {
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(code);
  }
  ExitAfterSession(session, code);
}

int CannotRun(const std::string& message) {
  std::cerr << "gpudoctor: " << message << "\n";
  return kExitCannotRun;
}

int RunFix(const FixOptions& o, const GlobalOptions& global) {
  if (!o.reset_gpu.empty()) {
    if (!o.from_report.empty() || !o.power_limit.empty() || !o.gpus.empty()) {
      return CannotRun(
          "--reset-gpu names its GPU alone: without --from-report, --power-limit "
          "or --gpu");
    }
    FixResetOptions r;
    r.gpu = o.reset_gpu;
    r.apply = o.apply;
    r.yes = o.yes;
    r.format = o.report.format;
    r.data_dir = o.data_dir;
    r.allow_shared_data_dir = o.allow_shared_data_dir;
    r.config = o.report.config;
    r.root = o.sampling.root;
    return RunFixReset(r, global);
  }
  if (o.apply && geteuid() != 0) {
    return CannotRun(
        "fix --apply needs root: it changes GPU settings through the driver (run it with sudo, "
        "or without --apply to see the plan)");
  }
  auto nvml = MakeNvmlOptions(global);
  if (!nvml) return CannotRun(nvml.error().message);
  auto plan = MakeLiveDiagnosisPlan(o.sampling, o.report);
  if (!plan) return CannotRun(plan.error().message);
  plan->nvml_library = nvml->library_path;
  if (o.report.format != "text" && o.report.format != "json") {
    return CannotRun("--format " + o.report.format + ": fix prints text or json");
  }
  if (auto limit = PowerLimitOption(o.power_limit); !limit) return CannotRun(limit.error().message);
  std::unique_ptr<AuditLogFile> audit;
  if (o.apply) {
    auto dir = ResolveDataDir(o.data_dir.empty() ? std::nullopt : std::optional(o.data_dir));
    if (!dir) return CannotRun(dir.error().message);
    if (auto made = EnsureDataDir(*dir, o.allow_shared_data_dir); !made) return CannotRun(made.error().message);
    auto file = AuditLogFile::Open(*dir);
    if (!file) return CannotRun(file.error().message);
    audit = std::move(*file);
  }

  auto session = NvmlSession::Open(*nvml);
  auto diagnosed = DiagnoseForFix(*session, o, *plan);
  if (!diagnosed) Leave(*session, nullptr, CannotRun(diagnosed.error().message));
  auto plan_options = MakePlanOptions(o, diagnosed->gpus);
  if (!plan_options) Leave(*session, nullptr, CannotRun(plan_options.error().message));
  auto fix_plan = BuildFixPlan(diagnosed->findings, diagnosed->gpus, *plan_options);
  if (!fix_plan) Leave(*session, nullptr, CannotRun(fix_plan.error().message));

  FixView view{&*fix_plan, nullptr, plan->lang, o.from_report, ""};
  const std::size_t applicable = ApplicableSteps(*fix_plan);
  bool any_skipped = false;
  for (const FixStep& s : fix_plan->steps) any_skipped = any_skipped || s.skipped;
  if (!o.apply || applicable == 0) {
    std::cout << Render(view, o);
    if (o.apply) {
      std::cerr << (plan->lang == Lang::kZh ? "没有可执行的步骤：未做任何修改。\n"
                                            : "No step to apply: nothing changed.\n");
    }
    if (audit) audit->DiscardIfUnused();
    Leave(*session, nullptr, o.apply && any_skipped ? kExitWarning : kExitOk);
  }
  if (!o.yes) {
    // The plan goes where it does not spoil a JSON document on stdout.
    (o.report.format == "json" ? std::cerr : std::cout) << FixToText(view) << std::flush;
    if (!Confirm(applicable, plan->lang)) {
      std::cerr << (plan->lang == Lang::kZh ? "已取消：未做任何修改。\n"
                                            : "Aborted: nothing changed.\n");
      audit->DiscardIfUnused();
      Leave(*session, nullptr, kExitOk);
    }
  }

  auto control = NvmlControl::Open(nvml->library_path, nvml->call_deadline);
  if (!control) Leave(*session, nullptr, CannotRun(control.error().message));
  ApplyEnv env{control->get(), audit.get(), Hostname(),
               [] { return std::chrono::system_clock::now(); }};
  std::vector<StepResult> results = ApplyPlan(*fix_plan, env);

  LiveDiagnosisPlan recheck = *plan;
  recheck.duration = std::min(plan->duration, kRecheckDuration);
  recheck.interval = std::min(plan->interval, recheck.duration);
  if (recheck.interval.count() <= 0) recheck.interval = std::chrono::milliseconds(500);
  LiveDiagnosis after = RunLiveDiagnosis(*session, recheck, IsTerminal(STDERR_FILENO));
  CompareAfter(*fix_plan, LatestGpus(after.input), after.diagnosis.findings, results);

  view.results = &results;
  view.audit_log = audit->path();
  std::cout << Render(view, o);
  Leave(*session, control->get(), AnyFailedOrSkipped(results) ? kExitWarning : kExitOk);
}

}  // namespace

void RegisterFix(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto o = std::make_shared<FixOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fix",
      "Plan the remedies for what a diagnosis found; with --apply (root) apply the safe "
      "ones through NVML, log each change and diagnose again");
  cmd->add_flag("--apply", o->apply, "Apply the steps gpudoctor can do (needs root)");
  cmd->add_flag("--yes", o->yes, "With --apply: do not ask for confirmation");
  cmd->add_flag("--force", o->force, "Also change GPUs that have compute processes");
  cmd->add_option("--from-report", o->from_report,
                  "Take the findings from this JSON report (gpudoctor diagnose --format json)");
  cmd->add_option("--gpu", o->gpus, "Only steps on these GPUs (index, UUID or PCI bus id)")
      ->delimiter(',')
      ->take_all();
  cmd->add_option("--reset-gpu", o->reset_gpu,
                  "Reset this GPU (index, UUID or bus id): check the preconditions, show the "
                  "commands; with --apply turn persistence off, reset, restore, read it back");
  cmd->add_option("--power-limit", o->power_limit,
                  "Set the power limit to WATTS instead of the default (checked against the "
                  "GPU's min/max)");
  cmd->add_option("--data-dir", o->data_dir,
                  "Where the audit log fix-audit.log goes (default /var/lib/gpudoctor for root)");
  cmd->add_flag("--allow-shared-data-dir", o->allow_shared_data_dir,
                  "Accept a data directory that another user owns or can write to (or that sits in "
                  "such a directory); by default refused, since planted links there could turn "
                  "root's writes against other files");
  cmd->add_option("--format", o->report.format, "text or json")->capture_default_str();
  cmd->add_option("--lang", o->report.lang, "en or zh (default: from LC_ALL / LANG)");
  cmd->add_option("--config", o->report.config, "Config file (thresholds for the diagnosis)");
  cmd->add_option("--duration", o->sampling.duration, "How long the diagnosis samples")
      ->capture_default_str();
  cmd->add_option("--interval", o->sampling.interval, "Time between two samples")
      ->capture_default_str()
      ->each([given = &o->sampling.interval_given](const std::string&) { *given = true; });
  cmd->add_option("--since", o->sampling.since, "Kernel log / journal window")
      ->capture_default_str();
  cmd->add_option("--root", o->sampling.root, "Read /proc, /sys, /var/log below this directory")
      ->capture_default_str();
  cmd->add_option("--kernel-log", o->sampling.kernel_logs, "Also read this kernel log file");
  cmd->callback([o, &global, exit_code] { *exit_code = RunFix(*o, global); });
}

}  // namespace gpudoctor
