#include "check/check_state.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/time_parse.h"

namespace gpudoctor {
namespace {

using nlohmann::json;

// Linux's largest pid_max (PID_MAX_LIMIT on 64-bit), and a GPU index far past any machine.
constexpr long long kMaxPid = 4194304;
constexpr long long kMaxGpuIndex = 4095;

Error Corrupt(const std::string& why) { return Error{ErrorCode::kCorrupt, why}; }

// The member `key` of `j` when it exists and `ok(member)` holds.
const json* Field(const json& j, const char* key, bool (json::*ok)() const noexcept) {
  auto it = j.find(key);
  if (it == j.end() || !((*it).*ok)()) return nullptr;
  return &*it;
}

std::string Missing(const std::string& where, const char* key, const char* type) {
  return where + key + " missing or not " + type;
}

Result<CheckGpu> ParseGpu(const json& g, const std::string& where) {
  if (!g.is_object()) return Corrupt(where + "not an object");
  CheckGpu gpu;
  const json* index = Field(g, "index", &json::is_number_integer);
  const json* bus = Field(g, "pci_bus_id", &json::is_string);
  const json* state = Field(g, "state", &json::is_string);
  if (!index || index->get<long long>() < 0 || index->get<long long>() > kMaxGpuIndex) return Corrupt(Missing(where, "index", "a number"));
  if (!bus) return Corrupt(Missing(where, "pci_bus_id", "a string"));
  if (!state) return Corrupt(Missing(where, "state", "a string"));
  gpu.index = index->get<unsigned>();
  gpu.pci_bus_id = bus->get<std::string>();
  gpu.state = state->get<std::string>();
  if (const json* name = Field(g, "name", &json::is_string)) gpu.name = name->get<std::string>();
  if (const json* d = Field(g, "state_detail", &json::is_string))
    gpu.state_detail = d->get<std::string>();
  return gpu;
}

Result<CheckFinding> ParseFinding(const json& f, const std::string& where) {
  if (!f.is_object()) return Corrupt(where + "not an object");
  CheckFinding finding;
  const json* id = Field(f, "id", &json::is_string);
  const json* severity = Field(f, "severity", &json::is_string);
  const json* gpus = Field(f, "gpus", &json::is_array);
  if (!id) return Corrupt(Missing(where, "id", "a string"));
  if (!severity) return Corrupt(Missing(where, "severity", "a string"));
  auto parsed = ParseSeverity(severity->get<std::string>());
  if (!parsed) return Corrupt(where + "severity '" + severity->get<std::string>() + "' unknown");
  if (!gpus) return Corrupt(Missing(where, "gpus", "a list"));
  finding.id = id->get<std::string>();
  finding.severity = *parsed;
  for (const auto& bus : *gpus) {
    if (!bus.is_string()) return Corrupt(where + "gpus holds a non-string");
    finding.gpus.push_back(bus.get<std::string>());
  }
  if (const json* title = Field(f, "title", &json::is_string))
    finding.title = title->get<std::string>();
  // Optional: agents before it was written leave it out.
  if (const json* action = Field(f, "recommended_action", &json::is_string)) {
    auto known = ParseRecoveryAction(action->get<std::string>());
    if (!known) {
      return Corrupt(where + "recommended_action '" + action->get<std::string>() + "' unknown");
    }
    finding.recommended = *known;
  }
  return finding;
}

std::string Seconds(std::chrono::milliseconds ms) {
  return std::to_string(ms.count() / 1000) + " s";
}

}  // namespace

Result<AgentSnapshot> ParseAgentState(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Corrupt("not a JSON object");
  AgentSnapshot s;
  const json* pid = Field(j, "pid", &json::is_number_integer);
  const json* last = Field(j, "last_sample_at", &json::is_string);
  const json* interval = Field(j, "interval_ms", &json::is_number_integer);
  const json* loaded = Field(j, "nvml_loaded", &json::is_boolean);
  const json* gpus = Field(j, "gpus", &json::is_array);
  const json* active = Field(j, "active_findings", &json::is_array);
  if (!pid || pid->get<long long>() <= 0 || pid->get<long long>() > kMaxPid) {
    return Corrupt(Missing("", "pid", "a process id"));
  }
  // An agent without NVML never samples: how fresh its answer ("cannot load
  // NVML") is, is when it wrote the state.
  const json* written = Field(j, "written_at", &json::is_string);
  if (!last && loaded && !loaded->get<bool>() && written) last = written;
  if (!last) return Corrupt(Missing("", "last_sample_at", "a time (no sample yet?)"));
  if (!interval || interval->get<long long>() <= 0) {
    return Corrupt(Missing("", "interval_ms", "a positive number"));
  }
  if (!loaded) return Corrupt(Missing("", "nvml_loaded", "a boolean"));
  if (!gpus) return Corrupt(Missing("", "gpus", "a list"));
  if (!active) return Corrupt(Missing("", "active_findings", "a list"));
  auto when = ParseTimePoint(last->get<std::string>());
  if (!when) return Corrupt("last_sample_at: " + when.error().message);
  s.pid = pid->get<int>();
  s.last_sample_at = *when;
  s.interval_ms = interval->get<std::int64_t>();
  s.nvml_loaded = loaded->get<bool>();
  if (const json* e = Field(j, "nvml_error", &json::is_string))
    s.nvml_error = e->get<std::string>();
  for (std::size_t i = 0; i < gpus->size(); ++i) {
    auto gpu = ParseGpu((*gpus)[i], "gpus[" + std::to_string(i) + "].");
    if (!gpu) return gpu.error();
    s.gpus.push_back(std::move(*gpu));
  }
  for (std::size_t i = 0; i < active->size(); ++i) {
    auto finding = ParseFinding((*active)[i], "active_findings[" + std::to_string(i) + "].");
    if (!finding) return finding.error();
    s.findings.push_back(std::move(*finding));
  }
  return s;
}

bool ProcessAlive(int pid) {
  if (pid <= 0) return false;
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

Result<AgentSnapshot> CheckFreshness(AgentSnapshot snapshot, const FreshnessPolicy& policy) {
  using std::chrono::milliseconds;
  const milliseconds limit =
      policy.max_age ? *policy.max_age
                     : std::max(milliseconds(3 * snapshot.interval_ms), milliseconds(15000));
  const auto age = std::chrono::duration_cast<milliseconds>(policy.now - snapshot.last_sample_at);
  if (age > limit) {
    return Corrupt("last sample " + Seconds(age) + " ago (limit " + Seconds(limit) + ")");
  }
  const auto& alive = policy.pid_alive ? policy.pid_alive : ProcessAlive;
  if (!alive(snapshot.pid)) {
    return Corrupt("agent pid " + std::to_string(snapshot.pid) + " is not running");
  }
  return snapshot;
}

Result<AgentSnapshot> LoadFreshAgentState(const std::string& path, const FreshnessPolicy& policy) {
  std::ifstream in(path);
  if (!in) {
    if (errno == ENOENT) return Error{ErrorCode::kNotFound, path + ": no such file"};
    return ErrnoError(errno, path);
  }
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = ParseAgentState(text.str());
  if (!parsed) return Error{parsed.error().code, path + ": " + parsed.error().message};
  auto fresh = CheckFreshness(std::move(*parsed), policy);
  if (!fresh) return Error{fresh.error().code, path + ": " + fresh.error().message};
  return fresh;
}

}  // namespace gpudoctor
