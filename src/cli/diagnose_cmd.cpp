// gpudoctor diagnose (also a bare `gpudoctor`): samples every GPU for
// --duration while collecting the host, PCI, versions, network and kernel-log
// evidence, runs every rule and prints the report.
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <future>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/nvml_options.h"
#include "cli/report_options.h"
#include "collect/evidence.h"
#include "core/duration.h"
#include "core/terminal.h"
#include "parse/ping_target.h"
#include "rules/engine.h"

namespace gpudoctor {
namespace {

struct DiagnoseOptions {
  std::string duration = "10s";
  std::string interval = "1s";
  std::string since = "24h";
  std::string root = "/";
  unsigned expected_gpus = 0;
  std::vector<std::string> kernel_logs;
  std::vector<std::string> pings;
  std::vector<std::string> python_envs;
  ReportOptions report;
};

struct Plan {
  std::chrono::milliseconds duration;
  std::chrono::milliseconds interval;
  EvidenceOptions evidence;
  Config config;
  Lang lang = Lang::kEn;
};

Result<std::chrono::milliseconds> DurationOption(const char* name, const std::string& text) {
  auto d = ParseDuration(text);
  if (!d) return Error{ErrorCode::kInvalid, std::string(name) + ": " + d.error().message};
  return *d;
}

Result<Plan> MakePlan(const DiagnoseOptions& o) {
  Plan p;
  auto duration = DurationOption("--duration", o.duration);
  if (!duration) return duration.error();
  auto interval = DurationOption("--interval", o.interval);
  if (!interval) return interval.error();
  auto since = DurationOption("--since", o.since);
  if (!since) return since.error();
  if (interval->count() <= 0) return Error{ErrorCode::kInvalid, "--interval: must be above 0"};
  p.duration = *duration;
  p.interval = *interval;
  auto config = ResolveConfig(o.report);
  if (!config) return config.error();
  p.config = *config;
  auto lang = ResolveLang(o.report);
  if (!lang) return lang.error();
  p.lang = *lang;
  std::error_code ec;
  if (!std::filesystem::is_directory(o.root, ec)) {
    return Error{ErrorCode::kInvalid, "--root " + o.root + ": not a directory"};
  }
  p.evidence.ctx.root = o.root;
  p.evidence.ctx.since = *since;
  std::vector<std::string> pings = o.pings.empty() ? p.config.ping_targets : o.pings;
  for (const auto& text : pings) {
    auto target = ParsePingTarget(text);
    if (!target) return Error{ErrorCode::kInvalid, "ping target " + text + ": " + target.error().message};
    p.evidence.ping_targets.push_back(*target);
  }
  p.evidence.python_envs = o.python_envs;
  if (o.expected_gpus > 0) p.config.expected_gpus = o.expected_gpus;
  p.evidence.expected_gpus = p.config.expected_gpus;
  for (const auto& f : o.kernel_logs) p.evidence.kernel.files.emplace_back(f);
  return p;
}

// Host name and kernel release: of this machine, or of the tree under --root.
void FillIdentity(DiagnosisInput& input, const CollectContext& ctx) {
  if (ctx.root == "/") {
    utsname u{};
    if (uname(&u) == 0) {
      input.hostname = u.nodename;
      input.kernel_release = u.release;
    }
    return;
  }
  auto trim = [](std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  };
  if (auto h = ReadRootFile(ctx, "/proc/sys/kernel/hostname", 256)) input.hostname = trim(*h);
  if (auto k = ReadRootFile(ctx, "/proc/sys/kernel/osrelease", 256)) input.kernel_release = trim(*k);
}

void FillFromEvidence(DiagnosisInput& input, Evidence ev) {
  input.host = std::move(ev.host);
  input.gpu_processes = std::move(ev.gpu_processes);
  input.pci = std::move(ev.pci);
  input.dropped_gpus = std::move(ev.dropped_gpus);
  input.versions = std::move(ev.versions);
  input.network = std::move(ev.network);
  input.kernel = std::move(ev.kernel);
}

// "\rsampling 3/10 s" on a terminal; nothing otherwise.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  void Show(std::chrono::milliseconds done, std::chrono::milliseconds total, Lang lang) {
    if (!enabled_) return;
    std::string line = lang == Lang::kZh ? "\r正在采样 " : "\rsampling ";
    line += std::to_string(done.count() / 1000) + "/" + std::to_string(total.count() / 1000) + " s ";
    WriteAll(STDERR_FILENO, line);
  }
  void Clear() {
    if (enabled_) WriteAll(STDERR_FILENO, "\r\033[K");
  }

 private:
  bool enabled_;
};

int RunDiagnose(const DiagnoseOptions& opts, const GlobalOptions& global) {
  auto nvml = MakeNvmlOptions(global);
  auto plan = nvml ? MakePlan(opts) : Result<Plan>(nvml.error());
  if (!plan) {
    std::cerr << "gpudoctor: " << plan.error().message << "\n";
    return kExitCannotRun;
  }
  auto session = NvmlSession::Open(*nvml);
  DiagnosisInput input;
  input.live = true;
  input.config = plan->config;
  const auto wall_start = std::chrono::system_clock::now();
  const auto start = std::chrono::steady_clock::now();
  SystemStatus first = session->Sample();
  AddReading(input, first, std::chrono::system_clock::now());

  EvidenceOptions ev_opts = plan->evidence;
  ev_opts.ctx.now = wall_start;
  // Host and network rates cover the sampling window; without NVML there is
  // nothing to sample, so a short window is enough.
  ev_opts.sample_window = first.nvml_loaded ? plan->duration : std::chrono::milliseconds(1000);
  auto evidence = std::async(std::launch::async, [&] { return CollectEvidence(first, ev_opts); });

  Progress progress(IsTerminal(STDERR_FILENO));
  if (first.nvml_loaded) {
    auto next = start + plan->interval;
    while (next <= start + plan->duration) {
      std::this_thread::sleep_until(next);
      AddReading(input, session->Sample(), std::chrono::system_clock::now());
      progress.Show(std::chrono::duration_cast<std::chrono::milliseconds>(next - start), plan->duration,
                    plan->lang);
      next += plan->interval;
    }
  }
  Evidence ev = evidence.get();
  progress.Clear();
  // Nothing to diagnose only when neither the bus nor a loaded kernel
  // module shows NVIDIA hardware; otherwise a broken driver is a finding.
  const bool no_nvidia_device = ev.pci.gpus.empty() && ev.pci.nvswitches.empty() &&
                                !ev.versions.driver.kernel_module.has_value();
  FillIdentity(input, ev_opts.ctx);
  FillFromEvidence(input, std::move(ev));
  input.window_from = wall_start - ev_opts.ctx.since;
  input.window_to = std::chrono::system_clock::now();
  if (!first.nvml_loaded && no_nvidia_device) {
    std::cerr << "gpudoctor: no NVIDIA GPU or driver found on this machine (" << first.nvml_error
              << "); nothing to diagnose. To read files from another machine: gpudoctor analyze FILE...\n";
    ExitAfterSession(*session, kExitCannotRun);
  }

  Diagnosis diagnosis = Diagnose(input);
  ReportContext report;
  report.input = &input;
  report.diagnosis = &diagnosis;
  report.generated_at = std::chrono::system_clock::now();
  report.lang = plan->lang;
  report.command = "diagnose";
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
  cmd->add_option("--duration", opts->duration, "How long to sample (500ms, 10s, 5m, ...)")
      ->capture_default_str();
  cmd->add_option("--interval", opts->interval, "Time between two samples")->capture_default_str();
  cmd->add_option("--since", opts->since, "Kernel log / journal window (e.g. 2h, 7d)")
      ->capture_default_str();
  AddReportOptions(*cmd, opts->report);
  cmd->add_option("--root", opts->root, "Read /proc, /sys, /var/log below this directory")
      ->capture_default_str();
  cmd->add_option("--expected-gpus", opts->expected_gpus,
                  "GPUs this machine should have (overrides [gpus] expected_count)");
  cmd->add_option("--kernel-log", opts->kernel_logs, "Also read this kernel log file (.gz too)");
  cmd->add_option("--ping", opts->pings,
                  "Measure latency and loss to HOST or HOST:PORT (repeatable; overrides [network] ping)");
  cmd->add_option("--python-env", opts->python_envs, "Also look for frameworks in this environment");
  cmd->callback([opts, &global, exit_code] { *exit_code = RunDiagnose(*opts, global); });
}

}  // namespace gpudoctor
