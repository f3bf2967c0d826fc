// gpudoctor status: one reading of every GPU, as a table or as JSON.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "collect/gpu_bus_ids.h"
#include "cli/commands.h"
#include "cli/nvml_options.h"
#include "collect/process_owners.h"
#include "core/terminal.h"
#include "collect/rdma.h"
#include "render/fabric_line.h"
#include "core/json_dump.h"
#include "render/ansi.h"
#include "render/status_json.h"
#include "render/status_table.h"
#include "status/anomalies.h"
#include "rules/gpu_health/group.h"
#include "status/gpu_selector.h"

namespace gpudoctor {
namespace {

// A driver that answers slowly is a finding even in one reading: the
// driver.nvml_slow rule over it, each finding's title as one line.
std::vector<std::string> SlowDriverNotes(const SystemStatus& status) {
  DiagnosisInput input;
  AddReading(input, status, std::nullopt);
  RuleOutput out(kDriverNvmlSlowRule.id, kDriverNvmlSlowRule.category);
  kDriverNvmlSlowRule.evaluate(input, out);
  std::vector<std::string> notes;
  const Lang lang = LangFromEnvironment();
  for (const Finding& f : out.findings()) {
    notes.push_back(std::string(SeverityName(f.severity)) + ": " + f.title.In(lang));
  }
  return notes;
}

struct StatusOptions {
  bool json = false;
  bool wide = false;
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
  MissingBusIds().Fill(ctx, status);  // a GPU NVML counts but cannot open
  ApplyProcessOwners(DescribeProcesses(ctx, ProcessPids(status)), status);
  NameKubeOwners(ctx, status);
  const auto notes = SlowDriverNotes(status);
  // The RDMA ports under --root, with the platform's expected count.
  RdmaFacts rdma = ReadRdma(ctx);
  FabricSummary fabric = SummarizeFabric(rdma, nullptr, PlatformIbPorts(status));
  AddNvlinkFabric(status, fabric);
  if (opts.json) {
    auto j = StatusToJson(status);
    // Beside NVML's reachability ("state"), the reading's verdict: what the
    // table's State column says (status/anomalies.h).
    for (std::size_t i = 0; i < status.gpus.size(); ++i) {
      j["gpus"][i]["verdict"] = ReadingVerdictName(ReadingVerdict(status.gpus[i], Thresholds{}));
    }
    j["fabric"] = FabricJson(fabric);
    std::cout << DumpJson(j, 2) << "\n";
    for (const auto& note : notes) std::cerr << "gpudoctor: " << note << "\n";
  } else {
    TableOptions table;
    table.color = !global.no_color && ShouldUseColor(1);
    if (auto size = GetTerminalSize(1); size && !opts.wide) table.width = size->columns;
    std::cout << RenderStatusTable(status, table);
    if (auto line = FabricLine(fabric); !line.empty()) std::cout << line << "\n";
    for (const auto& note : notes) std::cout << note << "\n";
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
  cmd->add_flag("--wide", opts->wide, "Show every column even when the table is wider than the terminal");
  cmd->add_option("--gpu", opts->gpus, "Only these GPUs (index, UUID or PCI bus id)")
      ->take_all();
  cmd->add_option("--root", opts->root,
                  "Read /proc, /etc/passwd (the processes' owners) and /sys/class/infiniband "
                  "below this directory");
  cmd->callback([opts, &global, exit_code] { *exit_code = RunStatus(*opts, global); });
}

}  // namespace gpudoctor
