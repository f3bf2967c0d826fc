// The state of a systemd service as systemd reports it (load, active and
// sub state, main pid and exit status). collect/service_state.h reads it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpudoctor {

struct ServiceState {
  std::string unit;                       // "nvidia-fabricmanager.service"
  std::string load_state;                 // "loaded", "not-found", "masked", ...
  std::string active_state;               // "active", "inactive", "failed", "activating", ...
  std::string sub_state;                  // "running", "dead", "failed", "exited", ...
  std::optional<int> exec_main_status;    // exit status of the main process
  std::optional<std::uint32_t> main_pid;  // 0 when not running
  bool Installed() const { return !load_state.empty() && load_state != "not-found"; }
  bool Running() const { return active_state == "active" && sub_state == "running"; }
};

}  // namespace gpudoctor
