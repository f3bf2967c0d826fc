// A latched finding (facts/latch.h) and an acknowledgement as JSON, for
// `gpudoctor ack --json` and the agent's POST /api/v1/ack.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "facts/latch.h"

namespace gpudoctor {

// {"finding", "cause", "xid", "pci_bus_id", "uuid", "serial", "boots",
// "first_seen", "latched_at"}.
nlohmann::ordered_json LatchToJson(const LatchedFinding& latch);

// {"acknowledged_by": who, "acknowledged": [LatchToJson...]}.
nlohmann::ordered_json AcknowledgedToJson(const std::string& who,
                                          const std::vector<LatchedFinding>& acked);

}  // namespace gpudoctor
