// gpudoctor facts: everything collected, the raw evidence diagnosis reads.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analyze/input_file.h"
#include "cli/commands.h"
#include "cli/nvml_options.h"
#include "collect/evidence.h"
#include "core/duration.h"
#include "core/json_dump.h"
#include "parse/ping_target.h"
#include "render/facts_json.h"
#include "render/json_text.h"

namespace gpudoctor {
namespace {

struct FactsOptions {
  bool json = false;
  std::string root = "/";
  std::string since = "24h";
  std::string window = "1s";
  std::vector<std::string> pings;
  std::vector<std::string> python_envs;
  std::vector<std::string> kernel_logs;
  unsigned expected_gpus = 0;
};

Result<EvidenceOptions> MakeEvidenceOptions(const FactsOptions& opts) {
  EvidenceOptions ev;
  std::error_code ec;
  if (!std::filesystem::is_directory(opts.root, ec)) {
    return Error{ErrorCode::kInvalid, "--root " + opts.root + ": not a directory"};
  }
  ev.ctx.root = opts.root;
  auto since = ParseDuration(opts.since);
  if (!since) return Error{ErrorCode::kInvalid, "--since: " + since.error().message};
  ev.ctx.since = *since;
  auto window = ParseDuration(opts.window);
  if (!window) return Error{ErrorCode::kInvalid, "--window: " + window.error().message};
  ev.sample_window = *window;
  for (const auto& p : opts.pings) {
    auto target = ParsePingTarget(p);
    if (!target) return Error{ErrorCode::kInvalid, "--ping " + p + ": " + target.error().message};
    ev.ping_targets.push_back(*target);
  }
  ev.python_envs = opts.python_envs;
  if (opts.expected_gpus > 0) ev.expected_gpus = opts.expected_gpus;
  for (const auto& f : opts.kernel_logs) {
    if (auto why = NotAFile(f)) return Error{ErrorCode::kInvalid, "--kernel-log " + why->message};
    ev.kernel.files.emplace_back(f);
  }
  return ev;
}

int RunFacts(const FactsOptions& opts, const GlobalOptions& global) {
  auto nvml = MakeNvmlOptions(global);
  auto ev_opts = nvml ? MakeEvidenceOptions(opts) : Result<EvidenceOptions>(nvml.error());
  if (!ev_opts) {
    std::cerr << "gpudoctor: " << ev_opts.error().message << "\n";
    return kExitCannotRun;
  }
  auto session = NvmlSession::Open(*nvml);
  Evidence evidence = CollectEvidence(*session, *ev_opts);
  auto doc = EvidenceToJson(evidence);
  std::cout << (opts.json ? DumpJson(doc, 2) + "\n" : JsonToText(doc));
  // Facts are evidence, not a verdict: exit 0 even when NVML is missing (it
  // is recorded in the document), 3 only when nothing could run at all.
  ExitAfterSession(*session, kExitOk);
}

}  // namespace

void RegisterFacts(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto opts = std::make_shared<FactsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "facts", "Print all collected evidence: GPUs, host, versions, PCIe, services, network, "
               "kernel events");
  cmd->add_flag("--json", opts->json, "Print the gpudoctor.facts/v1 JSON document");
  cmd->add_option("--root", opts->root, "Read /proc, /sys, /var/log below this directory")
      ->capture_default_str();
  cmd->add_option("--since", opts->since, "Kernel log window (e.g. 2h, 7d)")->capture_default_str();
  cmd->add_option("--window", opts->window, "Time between the two readings for rates")
      ->capture_default_str();
  cmd->add_option("--ping", opts->pings, "Measure latency and loss to HOST or HOST:PORT (repeatable)");
  cmd->add_option("--python-env", opts->python_envs, "Also look for frameworks in this environment");
  cmd->add_option("--kernel-log", opts->kernel_logs, "Also read this kernel log file (.gz too)");
  cmd->add_option("--expected-gpus", opts->expected_gpus, "GPUs this machine should have (1-1024)")
      ->check(CLI::Range(1, 1024));
  cmd->callback([opts, &global, exit_code] { *exit_code = RunFacts(*opts, global); });
}

}  // namespace gpudoctor
