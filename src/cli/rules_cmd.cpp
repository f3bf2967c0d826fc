// gpudoctor rules: the diagnosis rules in the order they run, with the
// evidence each needs, so a user can see what diagnose and analyze check.
// `--severity`: the level every Xid and SXid code gets and why (the severity
// policy, knowledge/severity_policy.h), with the config file's overrides.
// Both show the recovery action (knowledge/recovery_policy.h): per rule for
// its warnings and critical findings, per Xid from NVIDIA's catalog.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/config.h"
#include "knowledge/recovery_policy.h"
#include "knowledge/severity_policy.h"
#include "core/json_dump.h"
#include "rules/engine/registry.h"

namespace gpudoctor {
namespace {

std::vector<std::string> NeedNames(unsigned needs) {
  static const std::pair<unsigned, const char*> kNames[] = {
      {kNeedsGpuReadings, "gpu_readings"}, {kNeedsKernelLog, "kernel_log"}, {kNeedsHost, "host"},
      {kNeedsPci, "pci"},   {kNeedsVersions, "versions"}, {kNeedsNetwork, "network"},
      {kNeedsActive, "active"}, {kNeedsXidEvents, "xid_events"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNames) {
    if ((needs & bit) != 0) out.emplace_back(name);
  }
  return out;
}

int RunRules(bool as_json) {
  if (as_json) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::array();
    for (const Rule* r : AllRules()) {
      doc.push_back(
          {{"id", r->id},
           {"category", r->category},
           {"needs", NeedNames(r->needs)},
           {"description", r->description},
           {"recovery_at_warning", RecoveryActionName(RuleRecovery(r->id, Severity::kWarning))},
           {"recovery_at_critical", RecoveryActionName(RuleRecovery(r->id, Severity::kCritical))}});
    }
    std::cout << DumpJson(doc, 2) << "\n";
    return kExitOk;
  }
  for (const Rule* r : AllRules()) {
    std::string needs;
    for (const auto& n : NeedNames(r->needs)) needs += (needs.empty() ? "" : ",") + n;
    const RecoveryAction critical = RuleRecovery(r->id, Severity::kCritical);
    const std::string recovery =
        critical == RecoveryAction::kNone
            ? ""
            : "  [recovery " + std::string(RecoveryActionName(critical)) + "]";
    std::cout << r->id << std::string(r->id.size() < 30 ? 30 - r->id.size() : 1, ' ')
              << r->description << (needs.empty() ? "" : "  [needs " + needs + "]") << recovery
              << "\n";
  }
  return kExitOk;
}

struct SeverityRow {
  std::string key;  // "xid.79", "sxid.20034"
  std::string name;
  CodeLevel level;
  std::optional<RecoveryAction> recovery;  // Xids: what one occurrence needs
};

std::vector<SeverityRow> SeverityRows(const SeverityOverrides& overrides) {
  std::vector<SeverityRow> rows;
  for (const XidInfo& x : AllXids()) {
    rows.push_back({"xid." + std::to_string(x.code), x.meaning, XidLevel(x.code, overrides),
                    XidRecovery(x.code)});
  }
  for (const SxidInfo& x : AllSxids()) {
    rows.push_back({"sxid." + std::to_string(x.code), std::string(x.name),
                    SxidLevelOf(x.code, SxidLineSays::kNothing, overrides), std::nullopt});
  }
  // Overrides of codes no table lists still show.
  for (const auto& [code, level] : overrides.xid) {
    if (!LookupXid(code).in_catalog)
      rows.push_back(
          {"xid." + std::to_string(code), "", XidLevel(code, overrides), XidRecovery(code)});
  }
  for (const auto& [code, level] : overrides.sxid) {
    if (!FindSxid(code))
      rows.push_back({"sxid." + std::to_string(code), "",
                      SxidLevelOf(code, SxidLineSays::kNothing, overrides), std::nullopt});
  }
  return rows;
}

int RunSeverity(bool as_json, const std::string& config_path) {
  auto config =
      LoadConfig(config_path.empty() ? std::nullopt : std::optional<std::string>(config_path));
  if (!config) {
    std::cerr << "gpudoctor: " << config.error().message << "\n";
    return kExitCannotRun;
  }
  std::vector<SeverityRow> rows = SeverityRows(config->severity);
  if (as_json) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::array();
    for (const SeverityRow& r : rows) {
      doc.push_back(
          {{"code", r.key},
           {"name", r.name},
           {"level", std::string(XidSeverityName(r.level.severity))},
           {"why", r.level.why},
           {"overridden", r.level.overridden},
           {"recovery", r.recovery ? nlohmann::ordered_json(RecoveryActionName(*r.recovery))
                                   : nlohmann::ordered_json(nullptr)}});
    }
    std::cout << DumpJson(doc, 2) << "\n";
    return kExitOk;
  }
  std::cout << "code        level     why (name)\n";
  for (const SeverityRow& r : rows) {
    std::string level(XidSeverityName(r.level.severity));
    std::cout << r.key << std::string(r.key.size() < 12 ? 12 - r.key.size() : 1, ' ') << level
              << std::string(level.size() < 10 ? 10 - level.size() : 1, ' ') << r.level.why
              << (r.name.empty() ? "" : " (" + r.name + ")")
              << (r.recovery && *r.recovery != RecoveryAction::kNone
                      ? "  [recovery " + std::string(RecoveryActionName(*r.recovery)) + "]"
                      : "")
              << "\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterRules(CLI::App& app, int* exit_code) {
  auto as_json = std::make_shared<bool>(false);
  auto severity = std::make_shared<bool>(false);
  auto config = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("rules", "List the diagnosis rules, in the order they run, "
                                              "with the evidence each needs");
  cmd->add_flag("--json", *as_json, "Print the list as JSON");
  cmd->add_flag("--severity", *severity,
                "List the level of every Xid and SXid code and why, with the config file's "
                "[severity] overrides");
  cmd->add_option("--config", *config, "Configuration file (its [severity] overrides)");
  cmd->callback([as_json, severity, config, exit_code] {
    *exit_code = *severity ? RunSeverity(*as_json, *config) : RunRules(*as_json);
  });
}

}  // namespace gpudoctor
