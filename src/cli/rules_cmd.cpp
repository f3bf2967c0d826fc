// gpudoctor rules: the diagnosis rules in the order they run, with the
// evidence each needs, so a user can see what diagnose and analyze check.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/json_dump.h"
#include "rules/engine/registry.h"

namespace gpudoctor {
namespace {

std::vector<std::string> NeedNames(unsigned needs) {
  static const std::pair<unsigned, const char*> kNames[] = {
      {kNeedsGpuReadings, "gpu_readings"}, {kNeedsKernelLog, "kernel_log"}, {kNeedsHost, "host"},
      {kNeedsPci, "pci"},   {kNeedsVersions, "versions"}, {kNeedsNetwork, "network"},
      {kNeedsActive, "active"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNames) {
    if ((needs & bit) != 0) out.emplace_back(name);
  }
  return out;
}

int RunRules(bool json) {
  if (json) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::array();
    for (const Rule* r : AllRules()) {
      doc.push_back({{"id", r->id}, {"category", r->category}, {"needs", NeedNames(r->needs)},
                     {"description", r->description}});
    }
    std::cout << DumpJson(doc, 2) << "\n";
    return kExitOk;
  }
  for (const Rule* r : AllRules()) {
    std::string needs;
    for (const auto& n : NeedNames(r->needs)) needs += (needs.empty() ? "" : ",") + n;
    std::cout << r->id << std::string(r->id.size() < 30 ? 30 - r->id.size() : 1, ' ')
              << r->description << (needs.empty() ? "" : "  [needs " + needs + "]") << "\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterRules(CLI::App& app, int* exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("rules", "List the diagnosis rules, in the order they run, "
                                              "with the evidence each needs");
  cmd->add_flag("--json", *json, "Print the list as JSON");
  cmd->callback([json, exit_code] { *exit_code = RunRules(*json); });
}

}  // namespace gpudoctor
