#include "agent/agent_state.h"

#include "core/safe_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/json_dump.h"
#include "core/time_format.h"
#include "rules/engine/finding.h"

namespace gpudoctor {
namespace {

nlohmann::ordered_json TimeJson(const std::optional<WallTime>& t) {
  if (!t) return nullptr;
  return FormatRfc3339(*t);
}


}  // namespace

Status WriteAgentState(const std::string& path, const AgentState& s) {
  nlohmann::ordered_json j;
  j["schema"] = "gpudoctor.agent-state/v1";
  j["pid"] = s.pid;
  j["started_at"] = FormatRfc3339(s.started_at);
  j["last_sample_at"] = TimeJson(s.last_sample_at);
  j["written_at"] = TimeJson(s.written_at);
  j["interval_ms"] = s.interval_ms;
  j["samples_written"] = s.samples_written;
  j["samples_failed"] = s.samples_failed;
  j["nvml_loaded"] = s.nvml_loaded;
  j["nvml_error"] = s.nvml_error;
  j["verdict"] = s.worst_severity;
  auto& gpus = j["gpus"] = nlohmann::ordered_json::array();
  for (const auto& g : s.gpus) {
    gpus.push_back({{"index", g.index},
                    {"pci_bus_id", g.pci_bus_id},
                    {"uuid", g.uuid},
                    {"name", g.name},
                    {"state", GpuStateName(g.state)},
                    {"state_detail", g.state_detail}});
  }
  auto& active = j["active_findings"] = nlohmann::ordered_json::array();
  for (const auto& f : s.active_findings) {
    active.push_back({{"id", f.finding_id},
                      {"severity", SeverityName(f.severity)},
                      {"gpus", f.gpus},
                      {"title", f.title.en},
                      {"since", FormatRfc3339(f.start)},
                      {"recommended_action",
                       RecoveryActionName(f.recommended.value_or(RecoveryAction::kNone))}});
  }
  j["store"] = {{"file_bytes", s.store.file_bytes},
                {"raw_samples", s.store.raw_samples},
                {"rollup_minutes", s.store.rollup_minutes},
                {"events", s.store.events},
                {"finding_intervals", s.store.finding_intervals},
                {"oldest", TimeJson(s.store.oldest)},
                {"newest", TimeJson(s.store.newest)},
                {"writes_stopped", s.store.writes_stopped},
                {"last_error", s.store.last_error}};
  j["xid_events"] = s.xid_events;
  j["kernel_log"] = s.kernel_log;
  j["boot_id"] = s.boot_id;
  j["kmsg_last_monotonic_s"] =
      s.kmsg_last_monotonic_s ? nlohmann::ordered_json(*s.kmsg_last_monotonic_s) : nullptr;
  j["store_damage"] = s.store_damage;
  j["stopped_cleanly"] = s.stopped_cleanly;
  const std::string text = DumpJson(j, 2) + "\n";
  // A temporary file of its own (O_EXCL, never a link), renamed over path.
  return ReplaceFile(path, text, 0644);
}

Result<AgentState> ReadAgentState(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{ErrorCode::kNotFound, path + ": cannot be read"};
  std::stringstream buf;
  buf << in.rdbuf();
  auto j = nlohmann::json::parse(buf.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Error{ErrorCode::kCorrupt, path + ": not a JSON object"};
  }
  AgentState s;
  if (auto it = j.find("boot_id"); it != j.end() && it->is_string()) s.boot_id = *it;
  if (auto it = j.find("kmsg_last_monotonic_s"); it != j.end() && it->is_number()) {
    s.kmsg_last_monotonic_s = it->get<double>();
  }
  // A file from a gpudoctor that did not write it says nothing either way:
  // only open intervals then tell a killed run.
  auto clean = j.find("stopped_cleanly");
  s.stopped_cleanly = clean == j.end() || !clean->is_boolean() || clean->get<bool>();
  if (auto it = j.find("pid"); it != j.end() && it->is_number_integer()) {
    long long pid = it->get<long long>();
    if (pid > 0 && pid <= 4194304) s.pid = static_cast<int>(pid);  // Linux's largest pid_max
  }
  return s;
}

}  // namespace gpudoctor
