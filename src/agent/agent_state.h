// The agent's state file (<data_dir>/agent-state.json): what it is doing now,
// for `gpudoctor check`, the HTTP status and people; and where it stopped
// reading the kernel log, so that a restart does not record an event twice.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "core/kernel_event.h"
#include "core/result.h"
#include "facts/timeline.h"
#include "store/store.h"

namespace gpudoctor {

struct AgentState {
  int pid = 0;
  WallTime started_at;
  std::optional<WallTime> last_sample_at;
  std::optional<WallTime> written_at;  // when this state was written: the agent is alive
  std::int64_t interval_ms = 1000;
  std::int64_t samples_written = 0;
  std::int64_t samples_failed = 0;
  bool nvml_loaded = false;
  std::string nvml_error;
  std::vector<GpuStatus> gpus;  // latest reading: index, bus id, name, state
  std::vector<FindingInterval> active_findings;
  std::string worst_severity = "ok";
  StoreStats store;
  std::string xid_events;  // the NVML event watcher's one-line status
  std::string kernel_log;  // "/dev/kmsg" or why it is not read
  // Resume point for the kernel ring buffer.
  std::string boot_id;
  std::optional<double> kmsg_last_monotonic_s;
  // Written true as the agent's last act after a clean stop: a state file
  // that says false at the next start was left by a run that was killed.
  bool stopped_cleanly = false;
  // The store was found damaged and moved aside (one line naming both
  // files), or a note on damage in its write-ahead log; empty when none.
  std::string store_damage;
};

// Writes the file atomically (temp file + rename).
Status WriteAgentState(const std::string& path, const AgentState& state);
// Reads the resume point of a previous run; errors name the file.
Result<AgentState> ReadAgentState(const std::string& path);

}  // namespace gpudoctor
