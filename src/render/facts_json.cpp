#include "render/facts_json.h"

#include <nlohmann/json.hpp>

#include "core/time_format.h"
#include "render/events_json.h"
#include "render/facts_host_json.h"
#include "render/facts_json_util.h"
#include "render/facts_net_json.h"
#include "render/facts_pci_json.h"
#include "render/facts_versions_json.h"
#include "render/status_json.h"

namespace gpudoctor {

nlohmann::ordered_json EvidenceToJson(const Evidence& ev) {
  nlohmann::ordered_json j;
  j["schema"] = "gpudoctor.facts/v1";
  j["collected_at"] = FormatRfc3339(ev.collected_at);
  j["root"] = ev.root;
  j["nvml"] = StatusToJson(ev.nvml);
  j["host"] = ToJson(ev.host);
  j["gpu_processes"] = ToJson(ev.gpu_processes);
  j["pci"] = ToJson(ev.pci);
  j["dropped_gpus"] = ToJson(ev.dropped_gpus);
  j["versions"] = ToJson(ev.versions);
  j["network"] = ToJson(ev.network);
  nlohmann::ordered_json kernel;
  kernel["events"] = EventsToJson(ev.kernel.events);
  kernel["sources"] = facts_json::Sources(ev.kernel.sources);
  kernel["kmsg_records_lost"] = ev.kernel.kmsg_records_lost;
  j["kernel"] = kernel;
  return j;
}

}  // namespace gpudoctor
