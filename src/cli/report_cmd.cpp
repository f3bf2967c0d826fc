// gpudoctor report: the diagnosis of a recorded window. Reads what the agent
// stored for --since / --from..--to, runs the same rules as `diagnose` over
// it, and adds the timeline: when each finding started and ended, every
// event, and the time each GPU spent throttled.
#include <sys/utsname.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/report_options.h"
#include "core/data_dir.h"
#include "core/duration.h"
#include "core/time_format.h"
#include "core/time_parse.h"
#include "rules/engine.h"
#include "store/store.h"

namespace gpudoctor {
namespace {

struct ReportCliOptions {
  std::string since;
  std::string from;
  std::string to;
  std::vector<std::string> gpus;
  std::string data_dir;
  ReportOptions report;
};

struct Window {
  WallTime from;
  WallTime to;
};

Result<Window> ResolveWindow(const ReportCliOptions& o, WallTime now) {
  if (!o.since.empty() && !o.from.empty()) {
    return Error{ErrorCode::kInvalid, "--since and --from: give one or the other"};
  }
  Window w{now - std::chrono::hours(1), now};
  if (!o.to.empty()) {
    auto to = ParseTimePoint(o.to);
    if (!to) return Error{ErrorCode::kInvalid, "--to " + to.error().message};
    w.to = *to;
  }
  if (!o.from.empty()) {
    auto from = ParseTimePoint(o.from);
    if (!from) return Error{ErrorCode::kInvalid, "--from " + from.error().message};
    w.from = *from;
  } else {
    auto since = ParseDuration(o.since.empty() ? "1h" : o.since);
    if (!since) return Error{ErrorCode::kInvalid, "--since: " + since.error().message};
    w.from = w.to - *since;
  }
  if (w.from >= w.to) {
    return Error{ErrorCode::kInvalid, "the window is empty: --from " + FormatRfc3339(w.from) +
                                          " is not before --to " + FormatRfc3339(w.to)};
  }
  return w;
}

// Keeps the GPUs --gpu names (index or bus id).
Result<bool> FilterGpus(std::vector<GpuSeries>& gpus, const std::vector<std::string>& wanted) {
  if (wanted.empty()) return true;
  std::vector<GpuSeries> kept;
  for (const auto& text : wanted) {
    auto match = std::find_if(gpus.begin(), gpus.end(), [&](const GpuSeries& g) {
      const GpuStatus& s = g.latest();
      return std::to_string(s.index) == text || s.pci_bus_id == NormalizePciBusId(text) ||
             s.uuid == text;
    });
    if (match == gpus.end()) {
      return Error{ErrorCode::kInvalid,
                   "--gpu " + text + ": no such GPU recorded in this window"};
    }
    kept.push_back(std::move(*match));
    gpus.erase(match);
  }
  gpus = std::move(kept);
  return true;
}

int RunReport(const ReportCliOptions& o, const GlobalOptions& global) {
  const WallTime now = std::chrono::system_clock::now();
  auto window = ResolveWindow(o, now);
  auto lang = ResolveLang(o.report);
  auto config = ResolveConfig(o.report);
  auto dir = ResolveDataDir(o.data_dir.empty() ? std::nullopt : std::optional(o.data_dir));
  for (const Error* e : {window ? nullptr : &window.error(), lang ? nullptr : &lang.error(),
                         config ? nullptr : &config.error(), dir ? nullptr : &dir.error()}) {
    if (e != nullptr) {
      std::cerr << "gpudoctor report: " << e->message << "\n";
      return kExitCannotRun;
    }
  }
  StoreOptions so;
  so.data_dir = *dir;
  so.read_only = true;
  auto store = Store::Open(so);
  if (!store) {
    std::cerr << "gpudoctor report: " << store.error().message
              << (store.error().code == ErrorCode::kNotFound
                      ? " (nothing recorded: is `gpudoctor agent` running? For a check now: "
                        "gpudoctor diagnose)"
                      : "")
              << "\n";
    return kExitCannotRun;
  }
  auto stored = (*store)->ReadWindow(window->from, window->to, {});
  if (!stored) {
    std::cerr << "gpudoctor report: " << stored.error().message << "\n";
    return kExitCannotRun;
  }
  if (auto f = FilterGpus(stored->gpus, o.gpus); !f) {
    std::cerr << "gpudoctor report: " << f.error().message << "\n";
    return kExitCannotRun;
  }
  if (stored->gpus.empty() && stored->events.empty() && stored->timeline.findings.empty()) {
    std::cerr << "gpudoctor report: nothing recorded in " << *dir << " between "
              << FormatRfc3339(window->from) << " and " << FormatRfc3339(window->to)
              << "; is `gpudoctor agent` running? For a check now: gpudoctor diagnose\n";
    return kExitCannotRun;
  }
  DiagnosisInput input;
  input.config = *config;
  input.window_from = window->from;
  input.window_to = window->to;
  input.gpus = std::move(stored->gpus);
  input.gpu_readings = !input.gpus.empty();
  input.nvml_loaded = !input.gpus.empty();
  input.kernel = KernelFacts{};
  input.kernel->events = std::move(stored->events);
  input.kernel->sources = {SourceStatus{"agent store " + *dir, true, ""}};
  utsname u{};
  if (uname(&u) == 0) {
    input.hostname = u.nodename;
    input.kernel_release = u.release;
  }
  Diagnosis diagnosis = Diagnose(input);
  ReportContext report;
  report.input = &input;
  report.diagnosis = &diagnosis;
  report.generated_at = now;
  report.lang = *lang;
  report.command = "report";
  report.timeline = &stored->timeline;
  report.summaries = &stored->summaries;
  ReportOptions out = o.report;
  out.no_color = global.no_color;
  return WriteReport(report, out);
}

}  // namespace

void RegisterReport(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto o = std::make_shared<ReportCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Diagnose a recorded window from the agent's store: the same rules as diagnose, "
                "plus when each finding started and ended, every event and the time throttled");
  cmd->add_option("--since", o->since, "The window ends now (or at --to) and lasts this long "
                                       "(default 1h)");
  cmd->add_option("--from", o->from, "Window start: RFC 3339 or local 'YYYY-MM-DD HH:MM[:SS]'");
  cmd->add_option("--to", o->to, "Window end (default now)");
  cmd->add_option("--gpu", o->gpus, "Only this GPU: index, bus id or UUID (repeatable)");
  cmd->add_option("--data-dir", o->data_dir,
                  "The agent's data directory (default /var/lib/gpudoctor for root, "
                  "$XDG_STATE_HOME/gpudoctor otherwise)");
  AddReportOptions(*cmd, o->report);
  cmd->callback([o, &global, exit_code] { *exit_code = RunReport(*o, global); });
}

}  // namespace gpudoctor
