// A finding the agent latched: the same cause came back on the same physical
// GPU after the configured number of reboots (agent/escalation.h), so
// rebooting does not fix it. It stays (rule gpu.needs_inspection) until an
// operator acknowledges it (`gpudoctor ack`), across agent restarts and
// reboots, whether or not its evidence is still in the window.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/kernel_event.h"

namespace gpudoctor {

// What recurs: a rule's finding, and the Xid code when it names Xids.
struct RecurringCause {
  std::string finding_id;
  std::optional<int> xid;
  bool operator==(const RecurringCause&) const = default;
};

// One cause seen on one GPU during one boot (the agent records the first
// time in each boot).
struct Occurrence {
  WallTime time{};
  std::string boot_id;
};

struct LatchedFinding {
  std::int64_t id = 0;     // the store's row (what `ack` names)
  std::string finding_id;  // the rule whose finding recurred: "xid.fallen_off_bus"
  std::optional<int> xid;  // the Xid code it counted, for Xid findings
  std::string gpu;         // the GPU's key (bus id) when it latched
  std::string uuid;        // the physical GPU ("" when NVML never named it)
  std::string serial;      // the board's serial, when known
  int boots = 0;           // boots in which the cause was seen (counted)
  int after_reboots = 0;   // the threshold it crossed
  WallTime first_seen{};   // the first counted occurrence
  WallTime since{};        // when it latched
  std::string title_en;    // the recurring finding's title when it latched
  std::string title_zh;
};

}  // namespace gpudoctor
