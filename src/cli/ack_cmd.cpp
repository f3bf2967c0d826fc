// gpudoctor ack: clears a latched finding (gpu.needs_inspection) once the
// GPU has been inspected, repaired or replaced, recording who, when and why
// in the store's audit log (the report's timeline shows it). Works whether
// or not the agent runs; the agent drops the finding at its next
// evaluation. `ack --list` shows what is latched.
#include <pwd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/data_dir.h"
#include "core/json_dump.h"
#include "render/latch_json.h"
#include "store/latch_ack.h"

namespace gpudoctor {
namespace {

struct AckOptions {
  std::string finding;
  std::string gpu;
  std::string reason;
  std::string data_dir;
  bool list = false;
  bool json = false;
};

// The person acknowledging: the login name, and under sudo the user who
// ran sudo ("alice (root via sudo)").
std::string Who() {
  std::string name;
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_name != nullptr) {
    name = pw->pw_name;
  } else {
    name = "uid " + std::to_string(getuid());
  }
  if (const char* sudo = std::getenv("SUDO_USER"); sudo != nullptr && *sudo != '\0') {
    return std::string(sudo) + " (" + name + " via sudo)";
  }
  return name;
}

int RunAck(const AckOptions& o) {
  auto dir = ResolveDataDir(o.data_dir.empty() ? std::nullopt : std::optional(o.data_dir));
  if (!dir) {
    std::cerr << "gpudoctor ack: " << dir.error().message << "\n";
    return kExitCannotRun;
  }
  const WallTime now = std::chrono::system_clock::now();
  if (o.list) {
    auto open = ListOpenLatches(*dir, now);
    if (!open) {
      std::cerr << "gpudoctor ack: " << open.error().message << "\n";
      return kExitCannotRun;
    }
    if (o.json) {
      nlohmann::ordered_json doc = nlohmann::ordered_json::array();
      for (const auto& l : *open) doc.push_back(LatchToJson(l));
      std::cout << DumpJson(doc, 2) << "\n";
    } else if (open->empty()) {
      std::cout << "Nothing is latched.\n";
    } else {
      for (const auto& l : *open) std::cout << DescribeLatch(l) << "\n";
    }
    return open->empty() ? kExitOk : kExitCritical;
  }
  AckRequest r;
  r.finding = o.finding;
  r.gpu = o.gpu;
  r.reason = o.reason;
  r.who = Who();
  r.via = "gpudoctor ack";
  auto acked = AcknowledgeLatches(*dir, r, now);
  if (!acked) {
    std::cerr << "gpudoctor ack: " << acked.error().message << "\n";
    return acked.error().code == ErrorCode::kNotFound &&
                   acked.error().message.find("no latched finding") != std::string::npos
               ? kExitWarning
               : kExitCannotRun;
  }
  if (o.json) {
    const nlohmann::ordered_json doc = AcknowledgedToJson(r.who, *acked);
    std::cout << DumpJson(doc, 2) << "\n";
  } else {
    for (const auto& l : *acked) std::cout << "Acknowledged: " << DescribeLatch(l) << "\n";
    std::cout << "Recorded as " << r.who << " in " << *dir
              << "; the agent clears the finding at its next evaluation.\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterAck(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<AckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ack", "Clear a latched finding (a GPU sent for inspection) after repair, saying why");
  cmd->add_option("finding", o->finding,
                  "gpu.needs_inspection (the default), or the latched cause's rule id");
  cmd->add_option("--gpu", o->gpu, "The GPU: index, PCI bus id or UUID");
  cmd->add_option("--reason", o->reason,
                  "Why it can be cleared: what was inspected, repaired or replaced");
  cmd->add_option("--data-dir", o->data_dir, "The agent's data directory");
  cmd->add_flag("--list", o->list, "List what is latched (exit 2 when something is)");
  cmd->add_flag("--json", o->json, "Answer in JSON");
  cmd->callback([o, exit_code] {
    if (!o->list && o->reason.empty()) {
      std::cerr << "gpudoctor ack: --reason is required: say what was inspected, repaired or "
                   "replaced (it is recorded with your name)\n";
      *exit_code = kExitCannotRun;
      return;
    }
    *exit_code = RunAck(*o);
  });
}

}  // namespace gpudoctor
