// gpudoctor stress: provokes what the rules can only wait for. Loads the GPUs
// through the CUDA driver (dlopen'ed libcuda, PTX kernels built in): HBM
// bandwidth, memory patterns, and a compute burn on all GPUs at once, while
// NVML is sampled every 100 ms; then runs the stress.* rules over what it
// measured and prints the report. Never changes a GPU setting.
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <iostream>

#include "cli/commands.h"
#include "cli/nvml_options.h"
#include "cli/report_options.h"
#include "knowledge/hbm_peaks.h"
#include "nvml/nvml_xid_events.h"
#include "diagnosis/diagnose_window.h"
#include "rules/engine/registry.h"
#include "status/gpu_selector.h"
#include "stress/p2p_expectation.h"
#include "stress/run_lock.h"
#include "stress/stop_signal.h"
#include "stress/stress_run.h"

namespace gpudoctor {
namespace {

struct StressCmdOptions {
  StressOptions stress;
  ReportOptions report;
};

int CannotStress(const std::string& why) {
  std::cerr << "gpudoctor: cannot run stress: " << why << "\n";
  return kExitCannotRun;
}

// The GPUs to test, each matched with its CUDA device by bus id; errors name
// the GPU (busy with compute processes without --force, lost, or hidden from CUDA).
Result<std::vector<StressTarget>> PickTargets(const SystemStatus& status, const StressPlan& plan,
                                              const std::vector<CudaDeviceInfo>& devices) {
  auto picked = SelectGpus(status, plan.gpus);
  if (!picked) return Error{ErrorCode::kInvalid, "--gpu: " + picked.error().message};
  std::vector<StressTarget> out;
  for (std::size_t i : *picked) {
    const GpuStatus& g = status.gpus[i];
    std::string label = GpuLabel(g);
    if (g.state != GpuState::kOk) {
      return Error{ErrorCode::kUnavailable, label + " is " + GpuStateName(g.state) +
                                                (g.state_detail.empty() ? "" : " (" + g.state_detail + ")")};
    }
    if (!g.processes && !plan.force) {
      return Error{ErrorCode::kPermission,
                   label + ": its compute processes cannot be read; pass --force to load it anyway"};
    }
    if (g.processes && !g.processes->empty() && !plan.force) {
      std::string pids;
      for (const GpuProcess& p : *g.processes) pids += (pids.empty() ? "" : ", ") + std::to_string(p.pid);
      return Error{ErrorCode::kPermission,
                   fmt::format("{} runs {} compute process(es) (pid {}); stop them, or pass --force "
                               "to load it anyway",
                               label, g.processes->size(), pids)};
    }
    auto device = std::find_if(devices.begin(), devices.end(),
                               [&](const CudaDeviceInfo& d) { return d.pci_bus_id == g.pci_bus_id; });
    if (device == devices.end()) {
      return Error{ErrorCode::kNotFound,
                   label + " is not visible to CUDA (CUDA_VISIBLE_DEVICES, or a MIG or driver setting)"};
    }
    out.push_back(StressTarget{g, *device, ActiveNvLinksOf(g, status)});
  }
  if (out.empty()) return Error{ErrorCode::kNotFound, "no GPU to test"};
  return out;
}

void Announce(const StressPlan& plan, const std::vector<StressTarget>& targets) {
  std::string tests, gpus;
  for (StressTest t : plan.tests) tests += (tests.empty() ? "" : ", ") + std::string(StressTestName(t));
  for (const StressTarget& t : targets) {
    gpus += (gpus.empty() ? "" : "; ") + GpuLabel(t.nvml) + " " + t.nvml.name;
  }
  double each_s = std::chrono::duration<double>(plan.duration).count();
  bool memory = std::find(plan.tests.begin(), plan.tests.end(), StressTest::kMemory) != plan.tests.end();
  std::cerr << fmt::format(
      "gpudoctor stress: will run {} on {} GPU(s) [{}], each test for at most {} s ({} s in all), "
      "{}{}. No GPU setting is changed. Ctrl-C stops it.\n",
      tests, targets.size(), gpus, each_s, each_s * static_cast<double>(plan.tests.size()),
      plan.staggered ? "GPUs started one after another" : "all GPUs started together",
      memory ? fmt::format("; memory test over {:.0f} % of free memory", plan.memory_fraction * 100) : "");
}

void FillInput(DiagnosisInput& input, const StressRunResult& result) {
  for (const StressSample& s : result.samples) AddReading(input, s.status, s.time);
  input.gpu_readings = !result.samples.empty();
  if (!result.samples.empty()) {
    input.window_from = result.samples.front().time;
    input.window_to = result.samples.back().time;
  }
  input.active = result.run;
  for (ActiveGpuResult& gpu : input.active->gpus) {
    if (auto peak = FindHbmPeak(gpu.name)) {
      gpu.hbm_peak_gbps = peak->gbps;
      gpu.hbm_peak_source = std::string(peak->source);
    }
  }
  utsname u{};
  if (uname(&u) == 0) {
    input.hostname = u.nodename;
    input.kernel_release = u.release;
  }
  input.live = true;
}

int RunStressCommand(const StressCmdOptions& opts, const GlobalOptions& global) {
  auto plan = MakeStressPlan(opts.stress);
  if (!plan) return CannotStress(plan.error().message);
  auto lang = ResolveLang(opts.report);
  if (!lang) return CannotStress(lang.error().message);
  auto config = ResolveConfig(opts.report);
  if (!config) return CannotStress(config.error().message);
  auto nvml = MakeNvmlOptions(global);
  if (!nvml) return CannotStress(nvml.error().message);

  NvmlOptions first = *nvml;
  first.read_nvlink_topology = true;  // where each link leads, for the p2p expectation
  auto check = NvmlSession::Open(first);
  SystemStatus before = check->Sample();
  if (!before.nvml_loaded) {
    std::cerr << "gpudoctor: cannot run stress: " << before.nvml_error << "\n";
    ExitAfterSession(*check, kExitCannotRun);
  }
  auto lib = LoadCudaLibrary(ResolveCudaLibraryPath(""));
  if (!lib) {
    std::cerr << "gpudoctor: cannot run stress: no CUDA driver: " << lib.error().message << "\n";
    ExitAfterSession(*check, kExitCannotRun);
  }
  auto devices = ListCudaDevices(**lib);
  if (!devices) {
    std::cerr << "gpudoctor: cannot run stress: CUDA does not start: " << devices.error().message << "\n";
    ExitAfterSession(*check, kExitCannotRun);
  }
  auto targets = PickTargets(before, *plan, *devices);
  if (!targets) {
    std::cerr << "gpudoctor: cannot run stress: " << targets.error().message << "\n";
    ExitAfterSession(*check, kExitCannotRun);
  }
  auto lock = StressLock::Acquire(StressLock::DefaultPath());
  if (!lock) {
    std::cerr << "gpudoctor: cannot run stress: " << lock.error().message << "\n";
    ExitAfterSession(*check, kExitCannotRun);
  }
  Announce(*plan, *targets);

  InstallStressStopHandlers();
  NvmlOptions fast = *nvml;
  fast.read_processes = false;
  fast.read_gpm = false;
  fast.read_nvlink = false;
  auto sampler = NvmlSession::Open(fast);
  auto xids = NvmlXidWatcher::Start(nvml->library_path);
  StressRunResult result = RunStress(*plan, *lib, *targets, *sampler, xids.get(), std::cerr);
  xids.reset();
  if (result.run.interrupted) {
    std::cerr << fmt::format("gpudoctor stress: stopped after {} s; kernels stopped, device memory freed\n",
                             static_cast<long>(result.run.ran_s));
  }

  DiagnosisInput input;
  input.config = *config;
  FillInput(input, result);
  const std::vector<const Rule*> active_rules = ActiveRules();
  DiagnosisRequest request;
  request.rules = &active_rules;
  // No window to cut and no GPU to select (stress chose its GPUs): it cannot fail.
  Diagnosis diagnosis = std::move(DiagnoseWindow(input, request).value());
  ReportContext report;
  report.input = &input;
  report.diagnosis = &diagnosis;
  report.generated_at = std::chrono::system_clock::now();
  report.lang = *lang;
  report.command = "stress";
  ReportOptions out = opts.report;
  out.no_color = global.no_color;
  int code = WriteReport(report, out);
  if (check->HasAbandonedCalls()) ExitAfterSession(*check, code);
  ExitAfterSession(*sampler, code);
}

}  // namespace

void RegisterStress(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto opts = std::make_shared<StressCmdOptions>();
  CLI::App* cmd = app.add_subcommand(
      "stress", "Load the GPUs (HBM bandwidth, memory patterns, a full-power burn on all at once) "
                "while sampling NVML every 100 ms, and say what the load showed");
  cmd->add_option("--tests", opts->stress.tests, "Tests to run, comma-separated; they always run in the order hbm, memory, pcie, p2p, power")
      ->capture_default_str();
  cmd->add_option("--duration", opts->stress.duration, "How long each test may run (the burn runs this long)")
      ->capture_default_str();
  cmd->add_option("--gpu", opts->stress.gpus, "Only this GPU: index, UUID or bus id (repeatable)");
  cmd->add_option("--start", opts->stress.start,
                  "together (the worst inrush for the supply) or staggered (one GPU after another)")
      ->capture_default_str();
  cmd->add_option("--memory-fraction", opts->stress.memory_fraction,
                  "Share of free device memory the memory test covers (0-0.95]")
      ->capture_default_str();
  cmd->add_flag("--force", opts->stress.force, "Test GPUs that run compute processes too");
  AddReportOptions(*cmd, opts->report);
  cmd->callback([opts, &global, exit_code] { *exit_code = RunStressCommand(*opts, global); });
}

}  // namespace gpudoctor
