#include "cli/fix_reset.h"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/nvml_options.h"
#include "collect/exec_capture.h"
#include "collect/named_processes.h"
#include "collect/pci_devices.h"
#include "collect/process_info.h"
#include "collect/process_owners.h"
#include "core/config.h"
#include "core/data_dir.h"
#include "core/json_dump.h"
#include "core/time_format.h"
#include "fix/audit_log.h"
#include "fix/reset_plan.h"
#include "fix/reset_run.h"
#include "nvml/nvml_session.h"
#include "render/status_json.h"
#include "status/gpu_selector.h"
#include "store/store.h"

namespace gpudoctor {
namespace {
namespace fix_reset_detail {

constexpr std::chrono::seconds kCommandTimeout{120};
constexpr const char* kNvidiaSmi = "nvidia-smi";

int CannotRun(const std::string& message) {
  std::cerr << "gpudoctor: " << message << "\n";
  return kExitCannotRun;
}

// Resets recorded in fix's audit log and reboots in the agent's store over
// the period (a missing log or store counts none).
int RecentRecoveries(const std::string& dir, std::chrono::milliseconds period, WallTime now) {
  const WallTime since = now - period;
  int n = CountAuditSteps(dir, "gpu_reset", since);
  StoreOptions o;
  o.data_dir = dir;
  o.read_only = true;
  if (auto store = Store::Open(o); store) {
    if (auto reboots = (*store)->CountEvents(KernelEventKind::kReboot, since, now); reboots) {
      n += static_cast<int>(*reboots);
    }
  }
  return n;
}

std::string Joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::string PlanText(const ResetPlan& plan, const GpuStatus& g) {
  std::string out = "GPU reset of GPU " + std::to_string(g.index) + " (" + g.pci_bus_id +
                    (g.uuid.empty() ? "" : ", " + g.uuid) + "): preconditions\n";
  for (const auto& c : plan.checks) {
    const char* mark = c.state == CheckState::kOk       ? "[ok]    "
                       : c.state == CheckState::kBlocks ? "[BLOCKS]"
                                                        : "[note]  ";
    out += std::string("  ") + mark + " " + c.name + ": " + c.detail + "\n";
  }
  out += "Commands:\n";
  for (const auto& argv : ResetCommands(plan, kNvidiaSmi)) out += "  $ sudo " + Joined(argv) + "\n";
  if (plan.blocked) {
    out += "Not possible now: fix what blocks it, or " +
           std::string(RecoveryActionPhrase(plan.instead).en) + " instead.\n";
  }
  return out;
}

nlohmann::ordered_json PlanJson(const ResetPlan& plan, const GpuStatus& g) {
  nlohmann::ordered_json j;
  j["schema"] = "gpudoctor.reset/v1";
  j["gpu"] = {{"index", g.index}, {"pci_bus_id", g.pci_bus_id}, {"uuid", g.uuid}};
  j["checks"] = nlohmann::ordered_json::array();
  for (const auto& c : plan.checks) {
    j["checks"].push_back(
        {{"name", c.name}, {"state", CheckStateName(c.state)}, {"detail", c.detail}});
  }
  j["blocked"] = plan.blocked;
  j["commands"] = nlohmann::ordered_json::array();
  for (const auto& argv : ResetCommands(plan, kNvidiaSmi)) j["commands"].push_back(argv);
  j["instead"] = std::string(RecoveryActionName(plan.instead));
  return j;
}

// The evidence of a failed reset: what ran and answered, the GPUs before
// and after. Returns the file's path, or empty when it could not be written.
std::string KeepEvidence(const std::string& dir, const GpuStatus& before, const ResetRun& run,
                         const SystemStatus& before_all, const SystemStatus& after_all,
                         WallTime now) {
  std::string stamp = FormatRfc3339(now);
  for (char& c : stamp) {
    if (c == ':') c = '-';
  }
  std::string bus = before.pci_bus_id;
  for (char& c : bus) {
    if (c == ':') c = '-';
  }
  const std::string path = dir + "/reset-" + bus + "-" + stamp + ".log";
  std::ofstream out(path, std::ios::trunc);
  out << "gpudoctor fix --reset-gpu " << before.pci_bus_id << " at " << FormatRfc3339(now) << "\n"
      << "verdict: " << run.verdict << "\n\n";
  for (const auto& c : run.ran) {
    out << "$ " << Joined(c.argv) << "\n"
        << c.result.output << "(exit " << c.result.exit_status << ")\n\n";
  }
  out << "status before:\n"
      << DumpJson(StatusToJson(before_all), 2) << "\n\nstatus after:\n"
      << DumpJson(StatusToJson(after_all), 2) << "\n";
  out.flush();
  return out ? path : std::string();
}

bool Confirm(const GpuStatus& g) {
  std::cerr << "Reset GPU " << g.index << " (" << g.pci_bus_id << ")? [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes";
}

}  // namespace fix_reset_detail
}  // namespace

int RunFixReset(const FixResetOptions& o, const GlobalOptions& global) {
  if (o.format != "text" && o.format != "json") {
    return fix_reset_detail::CannotRun("--format " + o.format + ": fix prints text or json");
  }
  if (o.apply && geteuid() != 0) {
    return fix_reset_detail::CannotRun(
        "fix --reset-gpu --apply needs root (run it with sudo, or without --apply "
        "to see the preconditions)");
  }
  auto config = LoadConfig(o.config.empty() ? std::nullopt : std::optional(o.config));
  if (!config) return fix_reset_detail::CannotRun(config.error().message);
  auto dir = ResolveDataDir(o.data_dir.empty() ? std::nullopt : std::optional(o.data_dir));
  if (!dir) return fix_reset_detail::CannotRun(dir.error().message);
  auto nvml = MakeNvmlOptions(global);
  if (!nvml) return fix_reset_detail::CannotRun(nvml.error().message);
  auto session = NvmlSession::Open(*nvml);
  SystemStatus before_all = session->Sample();
  if (!before_all.nvml_loaded) {
    ExitAfterSession(
        *session, fix_reset_detail::CannotRun("fix --reset-gpu needs the GPUs' state from NVML: " +
                                              before_all.nvml_error));
  }
  auto picked = SelectGpus(before_all, {o.gpu});
  if (!picked) ExitAfterSession(*session, fix_reset_detail::CannotRun(picked.error().message));
  CollectContext ctx;
  ctx.root = o.root;
  ApplyProcessOwners(DescribeProcesses(ctx, ProcessPids(before_all)), before_all);
  NameKubeOwners(ctx, before_all);
  const GpuStatus before = before_all.gpus[picked->front()];

  const WallTime now = std::chrono::system_clock::now();
  ResetFacts facts;
  facts.gpu = before;
  facts.holders = FindProcessesNamed(ctx, {"nv-hostengine", "dcgm-exporter"});
  facts.fabric_manager_running = !FindProcessesNamed(ctx, {"nv-fabricmanager"}).empty();
  facts.nvswitch_system = !ReadPciDevices(ctx).nvswitches.empty();
  facts.max_recoveries = config->escalation.max_recoveries;
  facts.period = std::chrono::duration_cast<std::chrono::hours>(config->escalation.recovery_period);
  facts.recent_recoveries =
      fix_reset_detail::RecentRecoveries(*dir, config->escalation.recovery_period, now);
  const ResetPlan plan = PlanReset(facts);
  nlohmann::ordered_json doc = fix_reset_detail::PlanJson(plan, before);
  const bool json = o.format == "json";
  if (!json) std::cout << fix_reset_detail::PlanText(plan, before);
  if (!o.apply || plan.blocked) {
    doc["applied"] = false;
    if (json) std::cout << DumpJson(doc, 2) << "\n";
    if (!json && !o.apply) {
      std::cout << "Dry run: nothing was changed (add --apply, as root, to reset).\n";
    }
    if (!json && o.apply) std::cout << "Nothing was changed.\n";
    ExitAfterSession(*session, plan.blocked ? kExitWarning : kExitOk);
  }
  if (!o.yes && !fix_reset_detail::Confirm(before)) {
    std::cerr << "Aborted: nothing changed.\n";
    ExitAfterSession(*session, kExitOk);
  }
  if (auto made = EnsureDataDir(*dir, o.allow_shared_data_dir); !made) {
    ExitAfterSession(*session, fix_reset_detail::CannotRun(made.error().message));
  }
  auto audit = AuditLogFile::Open(*dir);
  if (!audit) ExitAfterSession(*session, fix_reset_detail::CannotRun(audit.error().message));

  RunCommand run = [](const std::vector<std::string>& argv) {
    auto r = ExecCapture(argv, fix_reset_detail::kCommandTimeout);
    if (!r) return CommandResult{-1, r.error().message};
    return CommandResult{r->exit_status, r->output};
  };
  SystemStatus after_all;
  ReadBack read_back = [&](const std::string& uuid) -> std::optional<GpuStatus> {
    after_all = session->Sample();
    for (const auto& g : after_all.gpus) {
      if (g.uuid == uuid) return g;
    }
    return std::nullopt;
  };
  const ResetRun result = RunReset(plan, before, fix_reset_detail::kNvidiaSmi, run, read_back);

  AuditEntry entry;
  entry.time = std::chrono::system_clock::now();
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) entry.host = host;
  entry.gpu_index = before.index;
  entry.pci_bus_id = before.pci_bus_id;
  entry.uuid = before.uuid;
  entry.step = "gpu_reset";
  entry.field = "gpu";
  entry.before = plan.persistence_on ? "persistence on" : "persistence off";
  entry.after = result.verdict;
  entry.result = result.ok() ? "ok" : "failed: " + result.verdict;
  const auto recorded = (*audit)->Record(entry);

  doc["applied"] = true;
  nlohmann::ordered_json ran = nlohmann::ordered_json::array();
  for (const auto& c : result.ran) {
    ran.push_back(
        {{"command", c.argv}, {"exit_status", c.result.exit_status}, {"output", c.result.output}});
  }
  doc["ran"] = std::move(ran);
  doc["ok"] = result.ok();
  doc["verdict"] = result.verdict;
  doc["audit_log"] = (*audit)->path();
  std::string evidence;
  if (!result.ok()) {
    evidence =
        fix_reset_detail::KeepEvidence(*dir, before, result, before_all, after_all, entry.time);
    doc["evidence"] = evidence;
    doc["recommended_action"] = std::string(RecoveryActionName(plan.instead));
  }
  if (json) {
    std::cout << DumpJson(doc, 2) << "\n";
  } else {
    for (const auto& c : result.ran) {
      std::cout << "ran: " << fix_reset_detail::Joined(c.argv) << " -> exit "
                << c.result.exit_status << "\n";
    }
    std::cout << (result.ok() ? "Done: " : "FAILED: ") << result.verdict << "\n";
    if (!result.ok()) {
      if (!evidence.empty()) std::cout << "Evidence kept in " << evidence << "\n";
      std::cout << "Recommended: " << RecoveryActionPhrase(plan.instead).en << "\n";
    }
    std::cout << "Recorded in " << (*audit)->path() << "\n";
  }
  if (!recorded) std::cerr << "gpudoctor: " << recorded.error().message << "\n";
  ExitAfterSession(*session, result.ok() ? kExitOk : kExitCritical);
}

}  // namespace gpudoctor
