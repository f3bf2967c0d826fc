// Kernel events as the report's `events` list: {time (RFC 3339 or null),
// kind, code, pci_bus_id, pid, process, message, count, source {file, line},
// detail, continuation}.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "core/kernel_event.h"

namespace gpudoctor {

nlohmann::ordered_json EventToJson(const KernelEvent& event);
nlohmann::ordered_json EventsToJson(const std::vector<KernelEvent>& events);

}  // namespace gpudoctor
