// gpudoctor report: the diagnosis of a recorded window. Reads what the agent
// stored for --since / --from..--to, runs the same rules as `diagnose` over
// it, and adds the timeline: when each finding started and ended, every
// event, and the time each GPU spent throttled.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/prometheus_options.h"
#include "report/prom_report.h"
#include "report/recorded_report.h"
#include "cli/report_options.h"
#include "core/data_dir.h"

namespace gpudoctor {
namespace {

struct ReportCliOptions {
  std::string since;
  std::string from;
  std::string to;
  std::vector<std::string> gpus;
  std::string data_dir;
  ReportOptions report;
  PrometheusCliOptions prometheus;
  std::string node;
  std::string match;
};

int RunPrometheusReport(const ReportCliOptions& o, const GlobalOptions& global, Lang lang,
                        const Config& config, WallTime now) {
  if (o.node.empty()) {
    std::cerr << "gpudoctor report: --prometheus needs --node (the instance or host label)\n";
    return kExitCannotRun;
  }
  if (!o.data_dir.empty()) {
    std::cerr << "gpudoctor report: --prometheus and --data-dir: give one or the other\n";
    return kExitCannotRun;
  }
  auto client = OpenPrometheus(o.prometheus);
  if (!client) {
    std::cerr << "gpudoctor report: " << client.error().message << "\n";
    return kExitCannotRun;
  }
  PromReportRequest request{o.node, o.gpus, o.since, o.from, o.to, o.match, config};
  auto built = BuildPrometheusReport(**client, request, now);
  if (!built) {
    std::cerr << "gpudoctor report: " << built.error().message << "\n";
    return kExitCannotRun;
  }
  ReportOptions out = o.report;
  out.no_color = global.no_color;
  return WriteReport((*built)->Context(now, lang), out);
}

int RunReport(const ReportCliOptions& o, const GlobalOptions& global) {
  const WallTime now = std::chrono::system_clock::now();
  auto lang = ResolveLang(o.report);
  auto config = ResolveConfig(o.report);
  for (const Error* e : {lang ? nullptr : &lang.error(), config ? nullptr : &config.error()}) {
    if (e != nullptr) {
      std::cerr << "gpudoctor report: " << e->message << "\n";
      return kExitCannotRun;
    }
  }
  if (!o.prometheus.prom.url.empty()) return RunPrometheusReport(o, global, *lang, *config, now);
  auto dir = ResolveDataDir(o.data_dir.empty() ? std::nullopt : std::optional(o.data_dir));
  if (!dir) {
    std::cerr << "gpudoctor report: " << dir.error().message << "\n";
    return kExitCannotRun;
  }
  RecordedWindowRequest request{o.since, o.from, o.to, o.gpus, *dir, *config};
  auto recorded = BuildRecordedReport(request, now);
  if (!recorded) {
    std::cerr << "gpudoctor report: " << recorded.error().message << "\n";
    return kExitCannotRun;
  }
  ReportOptions out = o.report;
  out.no_color = global.no_color;
  return WriteReport((*recorded)->Context(now, *lang), out);
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
  cmd->add_option("--prometheus", o->prometheus.prom.url,
                  "Build the report from this Prometheus-compatible server (Prometheus, Thanos, "
                  "Mimir, VictoriaMetrics) instead of the local store; needs --node");
  cmd->add_option("--node", o->node,
                  "With --prometheus: the node, as its instance (with or without :port) or its "
                  "Hostname/hostname/node label");
  cmd->add_option("--match", o->match,
                  "With --prometheus: only series matching this label selector, e.g. "
                  "'{job=\"gpudoctor\"}'");
  AddPrometheusClientOptions(*cmd, o->prometheus);
  AddReportOptions(*cmd, o->report);
  cmd->callback([o, &global, exit_code] { *exit_code = RunReport(*o, global); });
}

}  // namespace gpudoctor
