// The running agent's latest state (<data_dir>/agent-state.json) as
// `gpudoctor check` reads it: parsed, validated and judged fresh or not. A
// stale, malformed or orphaned file is never trusted; the caller then runs a
// short diagnosis instead.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_event.h"
#include "core/result.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// One GPU or one finding as check judges them, from either source.
struct CheckGpu {
  unsigned index = 0;
  std::string pci_bus_id;
  std::string name;
  std::string state = "ok";  // "ok", "lost", "hung", "error"
  std::string state_detail;
};

struct CheckFinding {
  std::string id;
  Severity severity = Severity::kInfo;
  std::vector<std::string> gpus;  // GPU keys (bus id, or "index:N"); empty: host-wide
  std::string title;              // English
  RecoveryAction recommended = RecoveryAction::kNone;  // none from an agent that does not say
};

struct AgentSnapshot {
  int pid = 0;
  WallTime last_sample_at;
  std::int64_t interval_ms = 1000;
  bool nvml_loaded = false;
  std::string nvml_error;
  std::vector<CheckGpu> gpus;
  std::vector<CheckFinding> findings;  // the active findings
};

// Parses the file's text. Errors (kCorrupt) say which field is missing or of
// the wrong type: pid, last_sample_at (a null one: the agent has not sampled
// yet; an agent without NVML, nvml_loaded false, is as fresh as its
// written_at), interval_ms, nvml_loaded, gpus[] and active_findings[] with their
// fields are required.
Result<AgentSnapshot> ParseAgentState(std::string_view text);

struct FreshnessPolicy {
  WallTime now;
  // Oldest acceptable last_sample_at; nullopt: max(3 x interval, 15 s).
  std::optional<std::chrono::milliseconds> max_age;
  // Whether a process with this pid exists; kill(pid, 0) by default.
  std::function<bool(int)> pid_alive;
};

// True when kill(pid, 0) succeeds or fails only for lack of permission.
bool ProcessAlive(int pid);

// The snapshot when it is fresh; otherwise an error (kCorrupt for stale or
// orphaned, naming why: "last sample 42 s ago (limit 15 s)", "agent pid 123
// is not running").
Result<AgentSnapshot> CheckFreshness(AgentSnapshot snapshot, const FreshnessPolicy& policy);

// Reads, parses and judges `path`. kNotFound when the file does not exist
// (no agent: not worth a note); other errors name the file.
Result<AgentSnapshot> LoadFreshAgentState(const std::string& path, const FreshnessPolicy& policy);

}  // namespace gpudoctor
