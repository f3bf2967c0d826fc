// gpudoctor status: one reading of every GPU, as a table or as JSON.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/nvml_options.h"
#include "collect/process_owners.h"
#include "core/json_dump.h"
#include "render/ansi.h"
#include "render/status_json.h"
#include "render/status_table.h"
#include "status/gpu_selector.h"

namespace gpudoctor {
namespace {

struct StatusOptions {
  bool json = false;
  std::vector<std::string> gpus;
  std::string root = "/";
};

int RunStatus(const StatusOptions& opts, const GlobalOptions& global) {
  auto nvml = MakeNvmlOptions(global);
  if (!nvml) {
    std::cerr << "gpudoctor: " << nvml.error().message << "\n";
    return kExitCannotRun;
  }
  nvml->read_nvlink_topology = true;
  auto session = NvmlSession::Open(*nvml);
  SystemStatus status = session->Sample();
  if (!status.nvml_loaded) {
    if (opts.json) std::cout << DumpJson(StatusToJson(status), 2) << "\n";
    std::cerr << "gpudoctor: " << status.nvml_error << "\n";
    ExitAfterSession(*session, kExitCannotRun);
  }
  if (auto filtered = FilterGpus(status, opts.gpus); !filtered) {
    std::cerr << "gpudoctor: " << filtered.error().message << "\n";
    ExitAfterSession(*session, kExitCannotRun);
  }
  // Who runs each process (user, container, pod), as `facts` finds it, and
  // the pod's and container's names from the kubelet's log directories.
  CollectContext ctx;
  ctx.root = opts.root;
  ApplyProcessOwners(DescribeProcesses(ctx, ProcessPids(status)), status);
  NameKubeOwners(ctx, status);
  if (opts.json) {
    std::cout << DumpJson(StatusToJson(status), 2) << "\n";
  } else {
    TableOptions table;
    table.color = !global.no_color && ShouldUseColor(1);
    std::cout << RenderStatusTable(status, table);
  }
  int code = kExitOk;
  for (const auto& g : status.gpus) {
    if (g.state != GpuState::kOk) code = kExitWarning;
  }
  ExitAfterSession(*session, code);
}

}  // namespace

void RegisterStatus(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto opts = std::make_shared<StatusOptions>();
  CLI::App* cmd = app.add_subcommand(
      "status", "One reading of every GPU: utilisation, memory, temperature, power, clocks, "
                "throttle reasons, ECC, PCIe, NVLink, processes");
  cmd->add_flag("--json", opts->json, "Print the gpudoctor.status/v1 JSON document");
  cmd->add_option("--gpu", opts->gpus, "Only these GPUs (index, UUID or PCI bus id)")
      ->take_all();
  cmd->add_option("--root", opts->root,
                  "Read /proc and /etc/passwd (the processes' owners) below this directory");
  cmd->callback([opts, &global, exit_code] { *exit_code = RunStatus(*opts, global); });
}

}  // namespace gpudoctor
