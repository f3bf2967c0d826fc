#include "cli/live_diagnosis.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <future>
#include <thread>

#include "analyze/input_file.h"
#include "collect/gpu_bus_ids.h"
#include "collect/process_owners.h"
#include "collect/xid_paths.h"
#include "core/duration.h"
#include "core/terminal.h"
#include "diagnosis/diagnose_window.h"
#include "nvml/nvml_xid_events.h"
#include "parse/ping_target.h"

namespace gpudoctor {
namespace {

Result<std::chrono::milliseconds> DurationOption(const char* name, const std::string& text) {
  auto d = ParseDuration(text);
  if (!d) return Error{ErrorCode::kInvalid, std::string(name) + ": " + d.error().message};
  return *d;
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
  if (auto k = ReadRootFile(ctx, "/proc/sys/kernel/osrelease", 256))
    input.kernel_release = trim(*k);
}

void FillFromEvidence(DiagnosisInput& input, Evidence ev) {
  input.host = std::move(ev.host);
  input.gpu_processes = std::move(ev.gpu_processes);
  input.pci = std::move(ev.pci);
  input.dropped_gpus = std::move(ev.dropped_gpus);
  input.versions = std::move(ev.versions);
  input.network = std::move(ev.network);
  if (input.network->rdma_before) {
    input.rdma_history.push_back(std::move(*input.network->rdma_before));
    input.network->rdma_before.reset();
  }
  input.kernel = std::move(ev.kernel);
}

// "\rsampling 3/10 s" on a terminal; nothing otherwise.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  void Show(std::chrono::milliseconds done, std::chrono::milliseconds total, Lang lang) {
    if (!enabled_) return;
    std::string line = lang == Lang::kZh ? "\r正在采样 " : "\rsampling ";
    line +=
        std::to_string(done.count() / 1000) + "/" + std::to_string(total.count() / 1000) + " s ";
    WriteAll(STDERR_FILENO, line);
  }
  void Clear() {
    if (enabled_) WriteAll(STDERR_FILENO, "\r\033[K");
  }

 private:
  bool enabled_;
};

// NVML's Xid events of the window into the kernel facts, each one the kernel
// log already holds left out.
void AddNvmlXids(NvmlXidWatcher* xids, KernelFacts& kernel) {
  if (xids == nullptr) return;
  std::vector<KernelEvent> nvml;
  for (const auto& x : xids->Take()) nvml.push_back(XidEventToKernelEvent(x));
  kernel.nvml_xid_events = xids->status().rfind("watching", 0) == 0;
  if (nvml.empty()) return;
  kernel.events = MergeXidPaths(std::move(kernel.events), std::move(nvml));
}

// Sleeps until `when`; false when a stop signal came first.
bool WaitForNextSample(std::chrono::steady_clock::time_point when, const StopSignals* stop) {
  if (stop == nullptr) {
    std::this_thread::sleep_until(when);
    return true;
  }
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(when - std::chrono::steady_clock::now());
    const WaitEventKind kind = WaitForEvent(*stop, -1, std::max(left, std::chrono::milliseconds(0))).kind;
    if (kind == WaitEventKind::kStop) return false;
    if (kind == WaitEventKind::kTimeout) return true;
  }
}

}  // namespace

Result<LiveDiagnosisPlan> MakeLiveDiagnosisPlan(const LiveDiagnosisOptions& o,
                                                const ReportOptions& report) {
  LiveDiagnosisPlan p;
  auto duration = DurationOption("--duration", o.duration);
  if (!duration) return duration.error();
  auto interval = DurationOption("--interval", o.interval);
  if (!interval) return interval.error();
  auto since = DurationOption("--since", o.since);
  if (!since) return since.error();
  if (interval->count() <= 0) return Error{ErrorCode::kInvalid, "--interval: must be above 0"};
  if (o.interval_given && duration->count() > 0 && *interval > *duration) {
    return Error{ErrorCode::kInvalid, "--interval " + o.interval + " is longer than --duration " + o.duration +
                                          ": only one reading would be taken (shorten --interval or lengthen "
                                          "--duration)"};
  }
  p.duration = *duration;
  p.interval = *interval;
  auto config = ResolveConfig(report);
  if (!config) return config.error();
  p.config = *config;
  auto lang = ResolveLang(report);
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
    if (!target)
      return Error{ErrorCode::kInvalid, "ping target " + text + ": " + target.error().message};
    p.evidence.ping_targets.push_back(*target);
  }
  p.evidence.python_envs = o.python_envs;
  if (o.expected_gpus > 0) p.config.expected_gpus = o.expected_gpus;
  p.evidence.expected_gpus = p.config.expected_gpus;
  p.evidence.dataset_mounts = p.config.dataset_mounts;
  for (const auto& f : o.kernel_logs) {
    if (auto why = NotAFile(f)) return Error{ErrorCode::kInvalid, "--kernel-log " + why->message};
    p.evidence.kernel.files.emplace_back(f);
  }
  return p;
}

LiveDiagnosis RunLiveDiagnosis(NvmlSession& session, const LiveDiagnosisPlan& plan, bool progress,
                               const StopSignals* stop) {
  LiveDiagnosis out;
  DiagnosisInput& input = out.input;
  input.live = true;
  input.config = plan.config;
  const auto wall_start = std::chrono::system_clock::now();
  const auto start = std::chrono::steady_clock::now();
  SystemStatus first = session.Sample();
  // A GPU NVML counts but cannot open gets its bus id from the PCI bus.
  MissingBusIds bus_ids;
  bus_ids.Fill(plan.evidence.ctx, first);
  // The Xids the driver reports while we sample, as the agent sees them;
  // the kernel log's line for each is counted once (xid_paths.h).
  std::unique_ptr<NvmlXidWatcher> xids;
  if (plan.watch_nvml_xids && first.nvml_loaded) xids = NvmlXidWatcher::Start(plan.nvml_library);
  // Who runs each process, looked up once per pid (collect/process_owners.h).
  ProcessOwnerCache owners;
  owners.Annotate(plan.evidence.ctx, first);
  AddReading(input, first, std::chrono::system_clock::now());

  EvidenceOptions ev_opts = plan.evidence;
  ev_opts.ctx.now = wall_start;
  // Set by this thread when a stop signal ends the sampling; the collectors
  // waiting out the same window (on the evidence thread) then stop too.
  std::atomic<bool> stopped{false};
  if (stop != nullptr) ev_opts.ctx.stop_requested = [&stopped] { return stopped.load(); };
  // Host and network rates cover what is left of the sampling window (a slow
  // driver may have spent much of it on the first reading), at least a
  // second; without NVML there is nothing to sample, so a second is enough.
  const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  ev_opts.sample_window = std::chrono::milliseconds(1000);
  if (first.nvml_loaded && plan.duration - spent > ev_opts.sample_window) {
    ev_opts.sample_window = plan.duration - spent;
  }
  auto evidence = std::async(std::launch::async, [&] { return CollectEvidence(first, ev_opts); });

  Progress bar(progress);
  if (first.nvml_loaded) {
    auto next = start + plan.interval;
    // A slow driver can make one sample outlast the interval, or the whole
    // duration: the samples it made late are skipped, never caught up on.
    const auto skip_missed = [&] {
      for (const auto now = std::chrono::steady_clock::now(); next < now;) next += plan.interval;
    };
    skip_missed();
    while (next <= start + plan.duration) {
      if (!WaitForNextSample(next, stop)) {
        stopped = true;
        out.interrupted = Interruption{std::chrono::duration_cast<std::chrono::milliseconds>(
                                           std::chrono::steady_clock::now() - start),
                                       plan.duration};
        break;
      }
      SystemStatus reading = session.Sample();
      bus_ids.Fill(plan.evidence.ctx, reading);
      owners.Annotate(plan.evidence.ctx, reading);
      AddReading(input, reading, std::chrono::system_clock::now());
      bar.Show(std::chrono::duration_cast<std::chrono::milliseconds>(next - start), plan.duration,
               plan.lang);
      next += plan.interval;
      skip_missed();
    }
  }
  Evidence ev = evidence.get();
  bar.Clear();
  AddNvmlXids(xids.get(), ev.kernel);
  xids.reset();
  // Nothing to diagnose only when neither the bus nor a loaded kernel
  // module shows NVIDIA hardware; otherwise a broken driver is a finding.
  const bool no_nvidia_device = ev.pci.gpus.empty() && ev.pci.nvswitches.empty() &&
                                !ev.versions.driver.kernel_module.has_value();
  FillIdentity(input, ev_opts.ctx);
  FillFromEvidence(input, std::move(ev));
  input.window_from = wall_start - ev_opts.ctx.since;
  input.window_to = std::chrono::system_clock::now();
  if (!first.nvml_loaded && no_nvidia_device) {
    out.nothing_to_diagnose = true;
    out.nvml_error = first.nvml_error;
    return out;
  }
  DiagnosisRequest request;
  request.fold_across_gpus = plan.fold_across_gpus;
  // Nothing is cut (the readings and events are this window's) and no GPU
  // is selected: it cannot fail.
  out.diagnosis = std::move(DiagnoseWindow(input, request).value());
  return out;
}

}  // namespace gpudoctor
