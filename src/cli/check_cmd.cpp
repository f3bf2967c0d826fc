// gpudoctor check: one health answer for fleet tools. Reads the running
// agent's latest state when it is fresh (no driver call at all), otherwise
// runs a short diagnosis; then answers for node-problem-detector (--npd: one
// line of at most 80 characters, exit 0/1/2), Slurm (--slurm: one line safe
// for scontrol's reason, exit 0 or non-zero) or people (a short summary, exit
// codes as diagnose).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <string_view>

#include "agent/agent.h"
#include "check/check_state.h"
#include "check/check_verdict.h"
#include "cli/commands.h"
#include "cli/live_diagnosis.h"
#include "cli/nvml_options.h"
#include "core/data_dir.h"
#include "core/duration.h"
#include "knowledge/recovery_policy.h"

namespace gpudoctor {
namespace {

enum class CheckMode { kHuman, kNpd, kSlurm };

struct CheckOptions {
  bool npd = false;
  bool slurm = false;
  std::vector<std::string> conditions;
  std::string data_dir;
  std::string max_age;   // empty: max(3 x the agent's interval, 15 s)
  std::string severity;  // empty: critical for --npd/--slurm, warning otherwise
  LiveDiagnosisOptions sampling;
  std::string config;
};

struct CheckPlan {
  CheckMode mode = CheckMode::kHuman;
  std::vector<CheckCondition> conditions;
  Severity threshold = Severity::kWarning;
  FreshnessPolicy freshness;
};

const char* StatusName(CheckStatus s) {
  return s == CheckStatus::kOk ? "ok" : s == CheckStatus::kProblem ? "problem" : "unknown";
}

// NPD: 0 ok, 1 problem, 2 unknown (never 3: NPD reads any other code as
// unknown anyway). Slurm: 0 healthy, 1 problem, 2 unknown. People: as
// diagnose (0 ok, 1 warning, 2 critical, 3 could not tell).
int ExitCode(CheckMode mode, const CheckResult& r) {
  if (r.status == CheckStatus::kOk) return kExitOk;
  if (mode != CheckMode::kHuman) return r.status == CheckStatus::kProblem ? 1 : 2;
  if (r.status == CheckStatus::kUnknown) return kExitCannotRun;
  return ExitCodeFor(r.worst);
}

// Prints the answer in the mode's form; returns the exit code.
int Answer(CheckMode mode, const CheckResult& r) {
  switch (mode) {
    case CheckMode::kNpd:
      std::cout << NpdLine(r) << "\n";
      break;
    case CheckMode::kSlurm:
      std::cout << SlurmReason(r) << "\n";
      break;
    case CheckMode::kHuman:
      std::cout << "gpudoctor check: " << StatusName(r.status) << " - " << r.reason << "\n";
      for (const auto& c : r.conditions) {
        std::cout << "  " << CheckConditionName(c.condition) << ": " << StatusName(c.status);
        // The reason of the summary line is said once, not again per condition.
        if (c.reason != r.reason) std::cout << " - " << c.reason;
        std::cout << "\n";
      }
      if (r.recommended != RecoveryAction::kNone) {
        std::cout << "  recovery: " << RecoveryActionPhrase(r.recommended).en << " ("
                  << RecoveryActionName(r.recommended) << ")\n";
      }
      break;
  }
  std::cout.flush();
  return ExitCode(mode, r);
}

// An answer when check itself cannot run (bad option, no data dir).
int CannotRun(CheckMode mode, const std::string& message) {
  if (mode == CheckMode::kHuman) {
    std::cerr << "gpudoctor: " << message << "\n";
    return kExitCannotRun;
  }
  CheckResult r;
  r.status = CheckStatus::kUnknown;
  r.reason = "unknown: " + message;
  return Answer(mode, r);
}

Result<CheckPlan> MakePlan(const CheckOptions& o) {
  CheckPlan plan;
  if (o.npd && o.slurm) return Error{ErrorCode::kInvalid, "--npd and --slurm exclude each other"};
  plan.mode = o.npd ? CheckMode::kNpd : o.slurm ? CheckMode::kSlurm : CheckMode::kHuman;
  for (const auto& name : o.conditions) {
    auto c = ParseCheckCondition(name);
    if (!c) {
      return Error{
          ErrorCode::kInvalid,
          "--condition " + name + ": unknown (GPUHealthy, GPUDropped, GPUThrottled, XidErrors)"};
    }
    plan.conditions.push_back(*c);
  }
  if (plan.conditions.empty()) {
    plan.conditions = plan.mode == CheckMode::kNpd ? std::vector{CheckCondition::kGpuHealthy}
                                                   : AllCheckConditions();
  }
  plan.threshold = plan.mode == CheckMode::kHuman ? Severity::kWarning : Severity::kCritical;
  if (!o.severity.empty()) {
    auto s = ParseSeverity(o.severity);
    if (!s || (*s != Severity::kWarning && *s != Severity::kCritical)) {
      return Error{ErrorCode::kInvalid, "--severity " + o.severity + ": use warning or critical"};
    }
    plan.threshold = *s;
  }
  if (!o.max_age.empty()) {
    auto age = ParseDuration(o.max_age);
    if (!age) return Error{ErrorCode::kInvalid, "--max-age: " + age.error().message};
    plan.freshness.max_age = *age;
  }
  return plan;
}

// NVML's errors say the cause first and its detail in parentheses ("no
// NVIDIA driver found (cannot load the NVIDIA management library
// /usr/lib/...: ...)"): the one-line answers say the cause, which fits NPD's
// 80 characters whole; the detail goes to stderr, which the Slurm health
// check logs.
void ShortenUnknownReason(CheckSource& source) {
  if (source.gpus_visible) return;
  const auto paren = source.unknown_reason.find(" (");
  if (paren == std::string::npos) return;
  std::cerr << "gpudoctor: " << source.unknown_reason << "\n";
  source.unknown_reason.resize(paren);
}

CheckSource FromAgent(const AgentSnapshot& s) {
  CheckSource source;
  source.origin = "agent state";
  source.gpus = s.gpus;
  source.findings = s.findings;
  source.gpus_visible = s.nvml_loaded;
  source.unknown_reason = "the agent cannot load NVML: " + s.nvml_error;
  return source;
}

// The agent samples the GPUs NVML lists; fewer than --expected-gpus is a
// dropped GPU, as a diagnosis would find.
void AddExpectedGpus(CheckSource& source, unsigned expected) {
  if (expected == 0 || source.gpus.size() >= expected) return;
  source.findings.insert(source.findings.begin(),
                         CheckFinding{"gpu.dropped",
                                      Severity::kCritical,
                                      {},
                                      std::to_string(source.gpus.size()) + " of " +
                                          std::to_string(expected) + " expected GPUs visible",
                                      RuleRecovery("gpu.dropped", Severity::kCritical)});
}

CheckSource FromDiagnosis(const LiveDiagnosis& live) {
  CheckSource source;
  source.origin = "diagnosis";
  for (const auto& g : live.diagnosis.gpus) {
    source.gpus.push_back(CheckGpu{g.index, g.pci_bus_id, g.name, g.state, ""});
  }
  for (const auto& f : live.diagnosis.findings) {
    source.findings.push_back(CheckFinding{f.id, f.severity, f.gpus, f.title.en,
                                           f.recommended.value_or(RecoveryAction::kNone)});
  }
  source.gpus_visible = !live.nothing_to_diagnose && live.input.nvml_loaded;
  // NVML's own error names the cause (no driver, a version mismatch, a
  // driver that did not answer in time); the generic words only without it.
  const std::string& error = !live.nvml_error.empty() ? live.nvml_error : live.input.nvml_error;
  if (live.input.nvml_loaded || live.nothing_to_diagnose) {
    source.unknown_reason = error.empty() ? "no NVIDIA GPU or driver found" : error;
  } else {
    source.unknown_reason = "NVML did not load: " + (error.empty() ? std::string("no reason given") : error);
  }
  return source;
}

int RunCheck(const CheckOptions& o, const GlobalOptions& global) {
  auto plan = MakePlan(o);
  if (!plan)
    return CannotRun(o.npd     ? CheckMode::kNpd
                     : o.slurm ? CheckMode::kSlurm
                               : CheckMode::kHuman,
                     plan.error().message);
  auto dir = ResolveDataDir(o.data_dir.empty() ? std::nullopt : std::optional(o.data_dir));
  if (dir) {
    const std::string path = *dir + "/" + kAgentStateFile;
    plan->freshness.now = std::chrono::system_clock::now();
    auto state = LoadFreshAgentState(path, plan->freshness);
    if (state) {
      CheckSource source = FromAgent(*state);
      AddGpuStateFindings(source);
      ShortenUnknownReason(source);
      if (source.gpus_visible) AddExpectedGpus(source, o.sampling.expected_gpus);
      return Answer(plan->mode, EvaluateCheck(source, plan->conditions, plan->threshold));
    }
    if (state.error().code != ErrorCode::kNotFound) {
      std::cerr << "gpudoctor: ignoring the agent state " << state.error().message << "; running a "
                << o.sampling.duration << " diagnosis\n";
    }
  }

  ReportOptions report;
  report.lang = "en";
  report.config = o.config;
  auto nvml = MakeNvmlOptions(global);
  if (!nvml) return CannotRun(plan->mode, nvml.error().message);
  auto live_plan = MakeLiveDiagnosisPlan(o.sampling, report);
  if (!live_plan) return CannotRun(plan->mode, live_plan.error().message);
  live_plan->nvml_library = nvml->library_path;
  auto session = NvmlSession::Open(*nvml);
  LiveDiagnosis live = RunLiveDiagnosis(*session, *live_plan, false);
  CheckSource source = FromDiagnosis(live);
  AddGpuStateFindings(source);
  ShortenUnknownReason(source);
  ExitAfterSession(*session,
                   Answer(plan->mode, EvaluateCheck(source, plan->conditions, plan->threshold)));
}

}  // namespace

std::optional<int> AnswerCheckUsageError(int argc, char** argv, const std::string& message) {
  int i = 1;
  while (i < argc && std::string_view(argv[i]) != "check") ++i;
  for (++i; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--npd") return CannotRun(CheckMode::kNpd, message);
    if (arg == "--slurm") return CannotRun(CheckMode::kSlurm, message);
  }
  return std::nullopt;
}

void RegisterCheck(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto o = std::make_shared<CheckOptions>();
  o->sampling.duration = "3s";
  o->sampling.interval = "500ms";
  CLI::App* cmd = app.add_subcommand(
      "check",
      "One health answer for node-problem-detector (--npd), Slurm (--slurm) or people: "
      "from the running agent's state when fresh, else a short diagnosis");
  cmd->add_flag("--npd", o->npd,
                "node-problem-detector custom plugin: one line <= 80 chars; exit 0 ok, 1 problem, "
                "2 unknown");
  cmd->add_flag("--slurm", o->slurm,
                "Slurm HealthCheckProgram / prolog: one scontrol-safe reason line; exit 0 healthy, "
                "1 problem, 2 unknown");
  cmd->add_option("--condition", o->conditions,
                  "Judge only this condition: GPUHealthy, GPUDropped, GPUThrottled, XidErrors "
                  "(repeatable; default GPUHealthy for --npd, all otherwise)");
  cmd->add_option("--severity", o->severity,
                  "Lowest severity that is a problem: warning or critical (default critical for "
                  "--npd/--slurm, warning otherwise)");
  cmd->add_option("--data-dir", o->data_dir, "Where the agent writes agent-state.json");
  cmd->add_option("--max-age", o->max_age,
                  "Oldest agent sample to trust (default max(3 x its interval, 15s))");
  cmd->add_option("--duration", o->sampling.duration,
                  "Sampling time of the fallback diagnosis when no fresh agent state exists")
      ->capture_default_str();
  cmd->add_option("--interval", o->sampling.interval, "Time between two samples")
      ->capture_default_str()
      ->each([given = &o->sampling.interval_given](const std::string&) { *given = true; });
  cmd->add_option("--since", o->sampling.since, "Kernel log window of the fallback diagnosis")
      ->capture_default_str();
  cmd->add_option("--root", o->sampling.root, "Read /proc, /sys, /var/log below this directory")
      ->capture_default_str();
  cmd->add_option("--expected-gpus", o->sampling.expected_gpus,
                  "GPUs this machine should have, 1-1024 (fewer is GPUDropped)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--config", o->config, "Configuration file (thresholds)");
  cmd->callback([o, &global, exit_code] { *exit_code = RunCheck(*o, global); });
}

}  // namespace gpudoctor
