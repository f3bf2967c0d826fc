// A live diagnosis, shared by `diagnose` and `fix`: samples every GPU through
// an NVML session for a duration while collecting the host, PCI, versions,
// network and kernel-log evidence, then runs every rule.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "cli/report_options.h"
#include "collect/evidence.h"
#include "core/config.h"
#include "core/result.h"
#include "core/terminal.h"
#include "facts/diagnosis_input.h"
#include "nvml/nvml_session.h"
#include "rules/engine/engine.h"

namespace gpudoctor {

// The sampling options as typed on the command line.
struct LiveDiagnosisOptions {
  std::string duration = "10s";
  std::string interval = "1s";
  // --interval was on the command line: one longer than --duration is then a
  // contradiction to point out, not a default to live with.
  bool interval_given = false;
  std::string since = "24h";
  std::string root = "/";
  unsigned expected_gpus = 0;
  std::vector<std::string> kernel_logs;
  std::vector<std::string> pings;
  std::vector<std::string> python_envs;
};

// The same, checked: durations parsed, config and language resolved.
struct LiveDiagnosisPlan {
  std::chrono::milliseconds duration{10000};
  std::chrono::milliseconds interval{1000};
  EvidenceOptions evidence;
  Config config;
  Lang lang = Lang::kEn;
  // NVML's Xid events are watched while sampling, through this library
  // (as NvmlOptions::library_path); false: not watched.
  bool watch_nvml_xids = true;
  std::string nvml_library;
  // One finding per cause over several GPUs, for a reader (diagnose).
  bool fold_across_gpus = false;
};

// Errors are one line naming the option (or the config file).
Result<LiveDiagnosisPlan> MakeLiveDiagnosisPlan(const LiveDiagnosisOptions& options,
                                                const ReportOptions& report);

struct LiveDiagnosis {
  DiagnosisInput input;
  Diagnosis diagnosis;  // empty when nothing_to_diagnose
  // NVML did not load and neither the PCI bus nor a kernel module shows
  // NVIDIA hardware; nvml_error says why NVML did not load.
  bool nothing_to_diagnose = false;
  std::string nvml_error;
  // Sampling was stopped early by a signal: how long it ran of how long.
  std::optional<Interruption> interrupted;
};

// Samples through `session` for plan.duration every plan.interval (a
// progress line on stderr when `progress`), collects the evidence over the
// same window and runs the rules. With `stop` (diagnose), SIGINT, SIGTERM or
// SIGHUP end the sampling early: the rules then run over what was sampled
// and `interrupted` says so.
LiveDiagnosis RunLiveDiagnosis(NvmlSession& session, const LiveDiagnosisPlan& plan, bool progress,
                               const StopSignals* stop = nullptr);

}  // namespace gpudoctor
