#include "render/latch_json.h"

#include "core/time_format.h"

namespace gpudoctor {

nlohmann::ordered_json LatchToJson(const LatchedFinding& l) {
  nlohmann::ordered_json one;
  one["finding"] = "gpu.needs_inspection";
  one["cause"] = l.finding_id;
  one["xid"] = l.xid ? nlohmann::ordered_json(*l.xid) : nlohmann::ordered_json();
  one["pci_bus_id"] = l.gpu;
  one["uuid"] = l.uuid;
  one["serial"] = l.serial;
  one["boots"] = l.boots;
  one["first_seen"] = FormatRfc3339(l.first_seen);
  one["latched_at"] = FormatRfc3339(l.since);
  return one;
}

nlohmann::ordered_json AcknowledgedToJson(const std::string& who,
                                          const std::vector<LatchedFinding>& acked) {
  nlohmann::ordered_json doc;
  doc["acknowledged_by"] = who;
  doc["acknowledged"] = nlohmann::ordered_json::array();
  for (const auto& l : acked) doc["acknowledged"].push_back(LatchToJson(l));
  return doc;
}

}  // namespace gpudoctor
