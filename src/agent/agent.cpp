#include "agent/agent.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <deque>
#include <optional>
#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "agent/agent_events.h"
#include "agent/boot_ledger.h"
#include "agent/agent_log.h"
#include "agent/agent_state.h"
#include "agent/escalation_ledger.h"
#include "store/latch_ack.h"
#include "agent/evidence_times.h"
#include "agent/finding_tracker.h"
#include "agent/http_snapshot.h"
#include "agent/sliding_window.h"
#include "core/time_format.h"
#include "diagnosis/diagnose_window.h"
#include "collect/collect_context.h"
#include "collect/gpu_bus_ids.h"
#include "collect/kmsg.h"
#include "collect/pstore.h"
#include "collect/process_owners.h"
#include "collect/process_states.h"
#include "nvml/driver_opener.h"
#include "collect/rdma.h"
#include "rules/engine/engine.h"

namespace gpudoctor {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// RDMA ports are read on their own, cheaper schedule than the other facts, and
// kept for an hour: port flaps and drops, and counter rates, need a history
// longer than the rules window. 360 readings of a 10-port node are ~1 MB.
constexpr milliseconds kRdmaEvery{10000};
constexpr std::chrono::hours kRdmaKeep{1};
constexpr std::size_t kRdmaMaxReadings = 400;

std::string BootId(const CollectContext& ctx) {
  auto text = ReadRootFile(ctx, "/proc/sys/kernel/random/boot_id", 128);
  if (!text) return "";
  std::string s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Calls `what` at most once per `every`; `due` says whether it is time.
struct Every {
  milliseconds every;
  Clock::time_point next = Clock::now();
  bool Due(Clock::time_point now) {
    if (now < next) return false;
    next = now + every;
    return true;
  }
};

// Reports a failing operation once when it starts failing and once when it
// recovers, instead of once per sample.
class Trouble {
 public:
  explicit Trouble(std::string what, std::string recovered = "working again")
      : what_(std::move(what)), recovered_(std::move(recovered)) {}
  void Failed(const std::string& why) {
    if (!failing_) Log(LogLevel::kError, what_ + ": " + why);
    failing_ = true;
  }
  void Ok() {
    if (failing_) Log(LogLevel::kInfo, what_ + ": " + recovered_);
    failing_ = false;
  }

 private:
  std::string what_;
  std::string recovered_;
  bool failing_ = false;
};

class Agent {
 public:
  Agent(AgentOptions options, AgentSignals& signals, std::unique_ptr<Store> store,
        SnapshotBox& snapshots, std::string store_damage, AgentHttpServer* http)
      : o_(std::move(options)),
        signals_(signals),
        http_(http),
        store_(std::move(store)),
        snapshots_(snapshots),
        metrics_(std::chrono::system_clock::now(), o_.interval),
        window_(o_.rules_window),
        state_path_(o_.store.data_dir + "/" + kAgentStateFile) {
    state_.store_damage = std::move(store_damage);
  }

  int Run();

 private:
  void OpenSession();
  void CloseAbandonedRun(const std::optional<AgentState>& previous);
  void RecordBoot(const std::optional<AgentState>& previous);
  void RecordStop();
  void Sample(WallTime now);
  void RecordEvents(std::vector<KernelEvent> events);
  void Evaluate(WallTime now);
  // The latches open now, from the store (an `ack` may have cleared one).
  void ReadLatches(WallTime now);
  void RefreshFacts();
  void ReadRdmaPorts(WallTime now);
  void CheckProcesses();
  void PutProcessFacts();
  void WriteState();
  void Reload();
  void ReloadWebConfig();
  void Publish();

  AgentOptions o_;
  AgentSignals& signals_;
  AgentHttpServer* http_;  // null without --listen
  std::unique_ptr<Store> store_;
  SnapshotBox& snapshots_;
  SnapshotBuilder metrics_;  // what /metrics shows, published after each sample
  std::unique_ptr<NvmlSession> session_;
  std::unique_ptr<AgentEventSources> events_;
  SlidingWindow window_;
  FindingTracker tracker_;
  std::optional<EscalationLedger> ledger_;  // from the start of Run
  std::vector<LatchedFinding> latched_;     // open latches, as last read
  std::optional<WallTime> last_evaluated_;  // the `now` of the last Evaluate
  DiagnosisInput base_;  // host, PCI, versions, network facts; config
  std::deque<RdmaFacts> rdma_;  // RDMA port readings, oldest first (kRdmaKeep)
  // A process-table check every kAgentProcessCheckEvery.
  StuckProcessTracker processes_;
  std::future<Evidence> facts_job_;
  SystemStatus last_;
  AgentState state_;
  std::string state_path_;
  milliseconds reopen_backoff_{1000};
  Clock::time_point reopen_at_ = Clock::now();
  int all_failed_samples_ = 0;
  ProcessOwnerCache owners_;  // user, container, pod per GPU process
  MissingBusIds bus_ids_;     // for GPUs NVML counts but cannot open
  Trouble nvml_trouble_{"NVML"};
  Trouble store_trouble_{"store", "writes resumed; recording again"};
  std::optional<Clock::time_point> gone_logged_at_;
  Trouble state_trouble_{"state file"};
};

void Agent::OpenSession() {
  // One opener for every session: a hung nvmlInit stays one pending attempt
  // across the retries below instead of a stuck thread per retry.
  if (!o_.nvml.opener) o_.nvml.opener = std::make_shared<DriverOpener>(o_.nvml.call_deadline);
  session_ = NvmlSession::Open(o_.nvml);
  all_failed_samples_ = 0;
}

void Agent::Sample(WallTime now) {
  if (!session_ && Clock::now() >= reopen_at_) OpenSession();
  if (!session_) return;
  const auto sample_start = Clock::now();
  SystemStatus status = session_->Sample();
  bus_ids_.Fill(o_.evidence.ctx, status);
  const double latency_s = std::chrono::duration<double>(Clock::now() - sample_start).count();
  owners_.Annotate(o_.evidence.ctx, status);
  metrics_.OnSample(status, now, latency_s);
  state_.nvml_loaded = status.nvml_loaded;
  state_.nvml_error = status.nvml_error;
  bool every_gpu_failed = status.nvml_loaded && !status.gpus.empty();
  for (const auto& g : status.gpus) every_gpu_failed = every_gpu_failed && g.state == GpuState::kError;
  all_failed_samples_ = every_gpu_failed ? all_failed_samples_ + 1 : 0;
  if (!status.nvml_loaded || all_failed_samples_ >= 10) {
    // The driver is missing or went away: open NVML again later, backing
    // off up to a minute between tries.
    nvml_trouble_.Failed((status.nvml_loaded ? std::string("every GPU fails to answer")
                                             : status.nvml_error) +
                         "; retrying with back-off");
    session_.reset();
    reopen_at_ = Clock::now() + reopen_backoff_;
    reopen_backoff_ = std::min(reopen_backoff_ * 2, milliseconds(60000));
    if (!status.nvml_loaded) return;
  } else {
    nvml_trouble_.Ok();
    reopen_backoff_ = milliseconds(1000);
  }
  RecordEvents(GpuLossEvents(last_, status, now));
  auto written = store_->AppendSample(now, status);
  if (written) {
    ++state_.samples_written;
    store_trouble_.Ok();
  } else {
    ++state_.samples_failed;
    store_trouble_.Failed(written.error().message + " (still sampling and evaluating; not recording)");
  }
  state_.last_sample_at = now;
  window_.AddReading(now, status);
  last_ = std::move(status);
}

void Agent::RecordEvents(std::vector<KernelEvent> events) {
  for (auto& e : events) {
    if (e.kind == KernelEventKind::kXid || e.kind == KernelEventKind::kGpuLost ||
        e.kind == KernelEventKind::kFallenOffBus) {
      Log(LogLevel::kWarning, std::string(KernelEventKindName(e.kind)) + ": " + e.message);
    }
    metrics_.OnEvent(e);
    auto stored = store_->AppendEvent(e);
    if (!stored) store_trouble_.Failed(stored.error().message);
    window_.AddEvent(std::move(e));
  }
}

void Agent::Evaluate(WallTime now) {
  window_.Trim(now);
  if (window_.readings() == 0 && window_.events().empty()) return;
  DiagnosisInput input = base_;
  input.live = true;
  if (input.network && !rdma_.empty()) {
    input.network->rdma = rdma_.back();
    input.rdma_history.assign(rdma_.begin(), rdma_.end() - 1);
  }
  window_.Fill(input);
  if (!input.kernel) input.kernel = KernelFacts{};
  input.kernel->sources = {SourceStatus{events_->kernel_log_status(),
                                        o_.follow_kernel_log &&
                                            events_->kernel_log_status().rfind("not", 0) != 0,
                                        o_.follow_kernel_log ? "" : "not followed"}};
  if (!input.kernel->sources.front().available && input.kernel->sources.front().why.empty()) {
    input.kernel->sources.front().why = events_->kernel_log_status();
  }
  input.kernel->nvml_xid_events = events_->watching_nvml_xids();
  ReadLatches(now);
  input.latched = latched_;
  DiagnosisRequest request;
  request.fold_across_gpus = false;  // the finding intervals are per GPU
  // The sliding window is the window (nothing to cut) and no GPU is
  // selected: it cannot fail.
  Diagnosis diagnosis = std::move(DiagnoseWindow(input, request).value());
  // A cause that came back after the configured reboots latches now (the
  // store's event and the log say so at once); its gpu.needs_inspection
  // finding comes with the next evaluation, which reads the latch.
  if (ledger_) {
    auto latched = ledger_->Record(input, diagnosis, base_.config.escalation, now);
    if (!latched) {
      store_trouble_.Failed(latched.error().message);
    } else {
      for (const auto& l : *latched) {
        Log(LogLevel::kWarning, "latched for hardware inspection: " + DescribeLatch(l));
      }
    }
  }
  // What is new since the last evaluation tells when each finding was last
  // (and, for a new one, first) shown, so that intervals do not trail their
  // evidence by the rules window.
  StampEvidenceTimes(input, last_evaluated_, diagnosis.findings,
                     [&](const Finding& f) { return !tracker_.IsOpen(f); });
  last_evaluated_ = now;
  FindingChanges changes = tracker_.Update(diagnosis.findings, now);
  // A new interval is stored from its first evidence; an open one extended.
  std::set<FindingKey> started;
  for (const auto& f : changes.started) {
    started.insert(FindingKey{f.finding_id, f.gpus});
    auto r = store_->FindingSeen(f, f.start);
    if (!r) store_trouble_.Failed(r.error().message);
  }
  for (const auto& f : changes.seen) {
    if (started.count(FindingKey{f.finding_id, f.gpus}) != 0) continue;
    auto r = store_->FindingSeen(f, now);
    if (!r) store_trouble_.Failed(r.error().message);
  }
  for (const auto& f : changes.cleared) {
    Log(LogLevel::kInfo, "finding ended: " + f.finding_id);
    auto r = store_->FindingCleared(f.finding_id, f.gpus, *f.end);
    if (!r) store_trouble_.Failed(r.error().message);
  }
  for (const auto& f : changes.started) {
    Log(LogLevel::kInfo, "finding started: " + f.finding_id + ": " + f.title.en);
  }
  state_.active_findings = tracker_.Active();
  metrics_.OnFindings(state_.active_findings);
  state_.worst_severity = SeverityName(diagnosis.verdict);
}

void Agent::ReadLatches(WallTime now) {
  auto open = store_->OpenLatches(now);
  if (!open) {
    // Keep the last known latches: a latch never drops by a read failing.
    store_trouble_.Failed(open.error().message);
    return;
  }
  latched_ = std::move(*open);
  metrics_.OnLatches(latched_);
}

// A run killed (kill -9, OOM, power loss) left its finding intervals open
// and never said it stopped: end them at its last sample and say so, so that
// the timeline shows the gap and no report calls them active.
void Agent::CloseAbandonedRun(const std::optional<AgentState>& previous) {
  auto last = store_->LastSampleTime();
  if (!last) {
    Log(LogLevel::kError, "store: " + last.error().message);
    return;
  }
  if (!*last) return;  // nothing recorded yet
  auto closed = store_->CloseOpenFindings(**last);
  if (!closed) {
    store_trouble_.Failed(closed.error().message);
    return;
  }
  const bool killed = *closed > 0 || (previous && !previous->stopped_cleanly);
  if (!killed) return;
  KernelEvent e;
  e.kind = KernelEventKind::kAgentStopped;
  e.time = **last;
  e.source = SourceRef{"agent", 0};
  e.message = "the agent stopped after this sample without closing its records (killed, crashed "
              "or the power was lost); nothing was recorded until it started again at " +
              FormatRfc3339(state_.started_at);
  if (*closed > 0) {
    e.message += "; " + std::to_string(*closed) + " finding interval(s) still open then end here";
  }
  Log(LogLevel::kWarning, "previous run: " + e.message);
  if (auto r = store_->AppendEvent(e); !r) store_trouble_.Failed(r.error().message);
}

// A new boot since the previous run: a reboot event at the boot's time, and
// the reboots of the last 3 days for /metrics.
void Agent::RecordBoot(const std::optional<AgentState>& previous) {
  BootChange change;
  change.previous_boot_id = previous ? previous->boot_id : "";
  change.boot_id = state_.boot_id;
  if (auto boot = ReadBootTime(o_.evidence.ctx)) change.boot_time = *boot;
  if (auto last = store_->LastSampleTime(); last && *last) change.last_sample = **last;
  const WallTime now = std::chrono::system_clock::now();
  if (!change.previous_boot_id.empty() && change.previous_boot_id != change.boot_id) {
    for (const auto& r :
         ReadPstore(o_.evidence.ctx, change.last_sample.value_or(WallTime{})).records) {
      change.crash_records.push_back(r.path);
    }
  }
  if (auto e = RebootEvent(change, now)) {
    Log(LogLevel::kWarning, e->message);
    if (auto r = store_->AppendEvent(*e); !r) store_trouble_.Failed(r.error().message);
  }
  auto recorded = store_->CountEvents(KernelEventKind::kReboot, now - kRebootLedgerSpan, now);
  if (!recorded) {
    store_trouble_.Failed(recorded.error().message);
    return;
  }
  metrics_.OnReboots(*recorded);
}

// A clean stop: the timeline shows where recording ends.
void Agent::RecordStop() {
  if (!state_.last_sample_at) return;
  KernelEvent e;
  e.kind = KernelEventKind::kAgentStopped;
  e.time = *state_.last_sample_at;
  e.source = SourceRef{"agent", 0};
  e.message = "the agent stopped (asked to); nothing is recorded until it starts again";
  if (auto r = store_->AppendEvent(e); !r) store_trouble_.Failed(r.error().message);
}

void Agent::RefreshFacts() {
  if (facts_job_.valid()) {
    if (facts_job_.wait_for(milliseconds(0)) != std::future_status::ready) return;
    Evidence ev = facts_job_.get();
    base_.host = std::move(ev.host);
    base_.gpu_processes = std::move(ev.gpu_processes);
    base_.pci = std::move(ev.pci);
    base_.dropped_gpus = std::move(ev.dropped_gpus);
    base_.versions = std::move(ev.versions);
    base_.network = std::move(ev.network);
    // The facts' own checks span one second; the agent's span minutes.
    PutProcessFacts();
    std::vector<std::string> dropped;
    for (const auto& d : base_.dropped_gpus) {
      if (d.reason != DropReason::kBelowExpectedCount) dropped.push_back(d.bus_id);
    }
    metrics_.OnDroppedGpus(std::move(dropped));
    return;
  }
  EvidenceOptions opts = o_.evidence;
  opts.ctx.now = std::chrono::system_clock::now();
  opts.sample_window = milliseconds(1000);
  opts.kernel.live = false;  // the event sources follow the log already
  opts.expected_gpus = base_.config.expected_gpus;
  opts.dataset_mounts = base_.config.dataset_mounts;  // follows a reload
  facts_job_ = std::async(std::launch::async,
                          [opts, reading = last_] { return CollectEvidence(reading, opts); });
}

void Agent::ReadRdmaPorts(WallTime now) {
  CollectContext ctx = o_.evidence.ctx;
  ctx.now = now;
  RdmaFacts facts = ReadRdma(ctx);
  if (base_.pci) AssignNearestGpus(facts, *base_.pci);
  metrics_.OnRdma(facts);
  if (auto stored = store_->AppendRdma(now, facts); !stored) {
    store_trouble_.Failed(stored.error().message);
  }
  rdma_.push_back(std::move(facts));
  while (rdma_.size() > kRdmaMaxReadings ||
         (rdma_.size() > 1 && rdma_.front().read_at && *rdma_.front().read_at < now - kRdmaKeep)) {
    rdma_.pop_front();
  }
}

void Agent::CheckProcesses() {
  auto scan = ReadProcessTicks(o_.evidence.ctx);
  if (scan.ok()) {
    processes_.Observe(*scan, Clock::now());
  } else {
    processes_.Failed(StatusOf("/proc/<pid>/stat", scan));
  }
  PutProcessFacts();
}

void Agent::PutProcessFacts() {
  if (!base_.host) return;
  const double every_s = std::chrono::duration<double>(
                             std::min<milliseconds>(kAgentProcessCheckEvery, o_.evaluate_every))
                             .count();
  base_.host->processes = processes_.Facts(0.8 * every_s * (kStuckChecks - 1));
  FillStuckDetails(o_.evidence.ctx, base_.host->processes);
}

void Agent::WriteState() {
  state_.gpus = last_.gpus;  // copied here, not at every sample
  state_.store = store_->Stats();
  // The store's file deleted under the agent: one error a minute until it
  // is recorded into a new file again.
  const auto now_steady = Clock::now();
  if (state_.store.file_gone) {
    if (!gone_logged_at_ || now_steady - *gone_logged_at_ >= std::chrono::minutes(1)) {
      Log(LogLevel::kError, "store: " + state_.store.last_error);
      gone_logged_at_ = now_steady;
    }
  } else if (gone_logged_at_) {
    Log(LogLevel::kInfo,
        "store: recording into a new file in the data directory again; it "
        "holds everything recorded, before and meanwhile");
    gone_logged_at_.reset();
  }
  state_.xid_events = events_->xid_status();
  state_.kernel_log = events_->kernel_log_status();
  state_.kmsg_last_monotonic_s = events_->last_monotonic_s();
  state_.written_at = std::chrono::system_clock::now();
  auto w = WriteAgentState(state_path_, state_);
  if (w) {
    state_trouble_.Ok();
  } else {
    state_trouble_.Failed(w.error().message);
  }
}

void Agent::Publish() {
  snapshots_.Publish(metrics_.Build(base_.config.expected_gpus.value_or(0), state_.store,
                                    static_cast<std::uint64_t>(state_.samples_written),
                                    static_cast<std::uint64_t>(state_.samples_failed)));
}

void Agent::Reload() {
  ReloadWebConfig();
  auto config = LoadConfig(o_.config_path);
  if (!config) {
    Log(LogLevel::kError, "SIGHUP: keeping the previous configuration: " + config.error().message);
    return;
  }
  base_.config = *config;
  Log(LogLevel::kInfo, "SIGHUP: configuration reloaded from " + config->source);
}

void Agent::ReloadWebConfig() {
  if (!o_.web_config_path || !http_) return;
  auto web = LoadWebConfig(*o_.web_config_path);
  if (!web) {
    Log(LogLevel::kError, "SIGHUP: keeping the previous web config: " + web.error().message);
    return;
  }
  // A file emptied by mistake (or half written by an editor) must not turn
  // authentication off on a running agent: that takes a restart.
  const bool guarded_now = o_.web && (o_.web->tls || !o_.web->basic_auth_users.empty());
  const bool guarded_next = web->tls || !web->basic_auth_users.empty();
  if (guarded_now && !guarded_next) {
    Log(LogLevel::kError, "SIGHUP: keeping the previous web config: " + *o_.web_config_path +
                              " now has no basic_auth_users and no tls_server_config, which "
                              "would serve /metrics and the API to anyone; restart the agent "
                              "to run without them");
    return;
  }
  WebConfig applied_web = *web;
  if (auto applied = http_->Reload(std::move(*web)); !applied) {
    Log(LogLevel::kError, "SIGHUP: keeping the previous web config: " + applied.error().message);
    return;
  }
  o_.web = std::move(applied_web);
  Log(LogLevel::kInfo, "SIGHUP: web config reloaded from " + *o_.web_config_path);
}

int Agent::Run() {
  state_.pid = static_cast<int>(getpid());
  state_.started_at = std::chrono::system_clock::now();
  state_.interval_ms = o_.interval.count();
  state_.boot_id = BootId(o_.evidence.ctx);
  std::optional<double> resume;
  std::optional<AgentState> previous;
  if (auto read = ReadAgentState(state_path_); read) previous = std::move(*read);
  if (previous && !state_.boot_id.empty() && previous->boot_id == state_.boot_id) {
    resume = previous->kmsg_last_monotonic_s;
  }
  metrics_.OnStoreDamage(state_.store_damage);
  CloseAbandonedRun(previous);
  RecordBoot(previous);
  {
    auto boot = ReadBootTime(o_.evidence.ctx);
    ledger_.emplace(*store_, state_.boot_id, boot ? std::optional<WallTime>(*boot) : std::nullopt);
  }
  base_.config = o_.config;
  utsname u{};
  if (o_.evidence.ctx.root == "/" && uname(&u) == 0) {
    base_.hostname = u.nodename;
    base_.kernel_release = u.release;
  }
  events_ = std::make_unique<AgentEventSources>(o_.evidence.ctx, o_.follow_kernel_log,
                                                o_.watch_nvml_events, o_.nvml.library_path, resume);
  OpenSession();
  Log(LogLevel::kInfo, "recording every " + std::to_string(o_.interval.count()) + " ms into " +
                           o_.store.data_dir + "; rules over the last " +
                           std::to_string(o_.rules_window.count() / 1000) + " s");
  Every evaluate{o_.evaluate_every};
  evaluate.next = Clock::now() + o_.evaluate_every;
  Every facts{o_.facts_every};
  Every state{milliseconds(5000)};
  Every rdma{std::min(kRdmaEvery, o_.evaluate_every)};
  Every process_check{std::min<milliseconds>(kAgentProcessCheckEvery, o_.evaluate_every)};
  const auto start = Clock::now();
  auto next = start;
  while (!signals_.stop_requested()) {
    if (o_.run_for && Clock::now() - start >= *o_.run_for) break;
    const WallTime now = std::chrono::system_clock::now();
    Sample(now);
    RecordEvents(events_->Poll());
    const auto tick = Clock::now();
    if (facts.Due(tick) || facts_job_.valid()) RefreshFacts();
    if (rdma.Due(tick)) ReadRdmaPorts(now);
    if (process_check.Due(tick)) CheckProcesses();
    if (evaluate.Due(tick)) Evaluate(now);
    if (state.Due(tick)) WriteState();
    Publish();
    next += o_.interval;
    // After a stall (a slow driver), skip the missed ticks instead of
    // sampling in a burst.
    if (next < Clock::now()) next = Clock::now() + o_.interval;
    for (;;) {
      signals_.WaitUntil(o_.run_for ? std::min(next, start + *o_.run_for) : next);
      if (!signals_.TakeReload()) break;
      Reload();
    }
  }
  RecordEvents(events_->Flush());
  Evaluate(std::chrono::system_clock::now());
  // Nobody watches after this: what was active ends where it was last seen.
  for (const auto& f : tracker_.CloseAll()) {
    auto r = store_->FindingCleared(f.finding_id, f.gpus, *f.end);
    if (!r) store_trouble_.Failed(r.error().message);
  }
  state_.active_findings.clear();
  RecordStop();
  auto flushed = store_->Flush();
  if (!flushed) Log(LogLevel::kError, "store: " + flushed.error().message);
  state_.stopped_cleanly = true;
  WriteState();
  if (facts_job_.valid()) facts_job_.wait();
  Log(LogLevel::kInfo, "stopped after " + std::to_string(state_.samples_written) + " samples");
  if ((session_ && session_->HasAbandonedCalls()) ||
      (o_.nvml.opener && o_.nvml.opener->HasHungAttempt())) {
    // A driver call never returned: NVML cannot be shut down; leave without
    // running its destructors.
    std::fflush(nullptr);
    std::_Exit(0);
  }
  return 0;
}

}  // namespace

int RunAgent(AgentOptions options, AgentSignals& signals) {
  // Before SQLite's recovery rewrites the write-ahead log.
  std::string damage = WalDamageNote(options.store.data_dir + "/" + kStoreFile);
  auto store = Store::Open(options.store);
  if (!store && store.error().code == ErrorCode::kCorrupt && !options.store.read_only) {
    // Keep monitoring: the damaged files are kept aside for a later look,
    // and recording starts again in a fresh store.
    auto moved = MoveDamagedStoreAside(options.store.data_dir, std::chrono::system_clock::now());
    if (moved) {
      const std::string& why = store.error().message;
      damage = why.substr(0, why.find(" (the store is damaged")) + ": the store is damaged; moved aside to " +
               *moved + ", recording into a new store";
      Log(LogLevel::kError, "store: " + damage);
      store = Store::Open(options.store);
    } else {
      Log(LogLevel::kError, "store: " + moved.error().message);
    }
  } else if (!damage.empty()) {
    Log(LogLevel::kWarning, "store: " + damage);
  }
  if (!store) {
    Log(LogLevel::kError, store.error().message);
    return 3;
  }
  SnapshotBox snapshots;
  std::unique_ptr<AgentHttpServer> http;
  if (options.listen) {
    AgentHttpOptions http_options{
        *options.listen, options.store.data_dir,         options.config,       options.metrics,
        options.web,     options.per_client_connections, options.health_listen};
    auto started = AgentHttpServer::Start(http_options, snapshots.Source());
    if (!started) {
      Log(LogLevel::kError, started.error().message);
      return 3;
    }
    http = std::move(*started);
    if (options.web) {
      for (const std::string& file : WorldReadableSecrets(*options.web)) {
        Log(LogLevel::kWarning, "--web-config: " + file +
                                    " holds secrets and every user of this machine may read it "
                                    "(chmod o-r)");
      }
    }
    const bool tls = options.web && options.web->tls;
    const bool users = options.web && !options.web->basic_auth_users.empty();
    Log(LogLevel::kInfo, std::string("serving /metrics on ") + (tls ? "https://" : "http://") +
                             options.listen->host + ":" + std::to_string(http->port()) +
                             (users ? " (basic authentication)" : ""));
    if (options.health_listen) {
      Log(LogLevel::kInfo, "serving /healthz alone on http://" + options.health_listen->host + ":" +
                               std::to_string(http->health_port()));
    }
  }
  AgentHttpServer* http_ptr = http.get();
  Agent agent(std::move(options), signals, std::move(*store), snapshots, std::move(damage), http_ptr);
  return agent.Run();
}

}  // namespace gpudoctor
