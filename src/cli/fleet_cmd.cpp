// gpudoctor fleet: every node and GPU of the fleet over a window, from
// Prometheus (or Thanos, Mimir, VictoriaMetrics): gpudoctor's agent series,
// or dcgm-exporter's alone with the rules run over them.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/prometheus_options.h"
#include "cli/report_options.h"
#include "core/duration.h"
#include "window/window.h"
#include "prom/fleet_build.h"
#include "render/ansi.h"
#include "render/fleet_render.h"

namespace gpudoctor {
namespace {

struct FleetCliOptions {
  PrometheusCliOptions prom;
  std::string since;
  std::string from;
  std::string to;
  std::string match;
  std::string stale_after = "5m";
  std::string resolution = "60s";
  int buckets = 24;
  ReportOptions out;
};

Result<std::chrono::seconds> Seconds(const std::string& option, const std::string& text) {
  auto d = ParseDuration(text);
  if (!d) return Error{ErrorCode::kInvalid, option + " " + text + ": " + d.error().message};
  if (*d < std::chrono::seconds(1)) {
    return Error{ErrorCode::kInvalid, option + " " + text + ": at least 1s"};
  }
  return std::chrono::duration_cast<std::chrono::seconds>(*d);
}

int RunFleet(const FleetCliOptions& o, const GlobalOptions& global) {
  auto fail = [](const std::string& message) {
    std::cerr << "gpudoctor fleet: " << message << "\n";
    return kExitCannotRun;
  };
  auto lang = ResolveLang(o.out);
  if (!lang) return fail(lang.error().message);
  auto config = ResolveConfig(o.out);
  if (!config) return fail(config.error().message);
  auto window = ResolveTimeWindow({o.since, o.from, o.to, "24h", "--"}, std::chrono::system_clock::now());
  if (!window) return fail(window.error().message);
  FleetRequest request;
  request.from = window->from;
  request.to = window->to;
  request.match = o.match;
  request.strip_buckets = o.buckets;
  request.config = *config;
  auto stale = Seconds("--stale-after", o.stale_after);
  auto resolution = Seconds("--resolution", o.resolution);
  if (!stale) return fail(stale.error().message);
  if (!resolution) return fail(resolution.error().message);
  request.stale_after = *stale;
  request.resolution = *resolution;
  auto client = OpenPrometheus(o.prom);
  if (!client) return fail(client.error().message);
  auto view = BuildFleetView(**client, request);
  if (!view) return fail(view.error().message);
  std::string text;
  if (o.out.format == "json") {
    text = RenderFleetJson(*view, *lang);
  } else if (o.out.format == "html") {
    text = RenderFleetHtml(*view, *lang);
  } else {
    const bool color = !global.no_color && o.out.output.empty() && ShouldUseColor(STDOUT_FILENO);
    text = RenderFleetText(*view, *lang, color);
  }
  return WriteCommandOutput(text, o.out.output, FleetExitCode(*view));
}

}  // namespace

void RegisterFleet(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto o = std::make_shared<FleetCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fleet", "Every node and GPU of the fleet over a window, worst first, from Prometheus: "
               "gpudoctor's agent series or dcgm-exporter's (the rules run over them)");
  cmd->add_option("--prometheus", o->prom.prom.url,
                  "Prometheus-compatible query API base URL (Prometheus, Thanos, Mimir, "
                  "VictoriaMetrics), e.g. http://prometheus:9090")
      ->required();
  cmd->add_option("--since", o->since, "The window ends now (or at --to) and lasts this long "
                                       "(default 24h)");
  cmd->add_option("--from", o->from, "Window start: RFC 3339 or local 'YYYY-MM-DD HH:MM[:SS]'");
  cmd->add_option("--to", o->to, "Window end (default now)");
  cmd->add_option("--match", o->match,
                  "Only series matching this label selector, e.g. '{job=\"gpudoctor\"}'");
  cmd->add_option("--stale-after", o->stale_after,
                  "A node with no sample for this long at the window's end is stale")
      ->capture_default_str();
  cmd->add_option("--resolution", o->resolution,
                  "The scrape interval: dcgm-exporter series are read at this resolution")
      ->capture_default_str();
  cmd->add_option("--buckets", o->buckets,
                  "Stretches of the window in each node's verdict strip (and in the readings "
                  "the rules see for dcgm-exporter nodes)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  AddPrometheusClientOptions(*cmd, o->prom);
  cmd->add_option("--format", o->out.format, "text, json (gpudoctor.fleet/v1) or html")
      ->check(CLI::IsMember({"text", "json", "html"}))
      ->capture_default_str();
  AddOutputOption(*cmd, o->out.output, "Write to FILE instead of standard output");
  cmd->add_option("--lang", o->out.lang, "en or zh (default: from LC_ALL / LANG)")
      ->check(CLI::IsMember({"en", "zh"}));
  cmd->add_option("--config", o->out.config,
                  "TOML configuration file: the thresholds the rules use for dcgm-exporter nodes");
  cmd->callback([o, &global, exit_code] { *exit_code = RunFleet(*o, global); });
}

}  // namespace gpudoctor
