#include "render/facts_pci_json.h"

#include <cstdio>

#include "render/facts_json_util.h"

namespace gpudoctor {

using facts_json::OrNull;
using facts_json::Sources;
using Json = nlohmann::ordered_json;

namespace {

std::string Hex(std::uint32_t value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, value);
  return buf;
}

Json AerJson(const std::optional<AerCounters>& aer) {
  if (!aer) return nullptr;
  Json out;
  out["total"] = aer->total;
  Json counters = Json::object();
  for (const auto& [name, count] : aer->counters) counters[name] = count;
  out["counters"] = std::move(counters);
  return out;
}

}  // namespace

Json ToJson(const PciDevice& d) {
  Json out;
  out["bus_id"] = d.bus_id;
  out["kind"] = PciFunctionKindName(d.kind);
  out["vendor_id"] = Hex(d.vendor_id, 4);
  out["device_id"] = Hex(d.device_id, 4);
  out["class"] = Hex(d.class_code, 6);
  out["revision"] = d.revision ? Json(Hex(*d.revision, 2)) : Json(nullptr);
  out["answers"] = d.answers;
  if (!d.answers) out["no_answer_detail"] = d.no_answer_detail;
  Json link;
  link["speed_current_gt_s"] = OrNull(d.link_speed_current_gt_s);
  link["speed_max_gt_s"] = OrNull(d.link_speed_max_gt_s);
  link["gen_current"] = OrNull(d.link_gen_current);
  link["gen_max"] = OrNull(d.link_gen_max);
  link["width_current"] = OrNull(d.link_width_current);
  link["width_max"] = OrNull(d.link_width_max);
  const std::string degradation = PcieLinkDegradation(d);
  link["degraded"] = !degradation.empty();
  link["degradation"] = degradation;
  out["link"] = std::move(link);
  Json aer;
  aer["correctable"] = AerJson(d.aer_correctable);
  aer["nonfatal"] = AerJson(d.aer_nonfatal);
  aer["fatal"] = AerJson(d.aer_fatal);
  out["aer"] = std::move(aer);
  out["numa_node"] = OrNull(d.numa_node);
  out["driver"] = d.driver;
  out["upstream_ports"] = d.upstream_ports;
  out["sources"] = Sources(d.sources);
  return out;
}

Json ToJson(const PciFacts& facts) {
  Json out;
  Json gpus = Json::array();
  for (const auto& d : facts.gpus) gpus.push_back(ToJson(d));
  Json switches = Json::array();
  for (const auto& d : facts.nvswitches) switches.push_back(ToJson(d));
  out["gpus"] = std::move(gpus);
  out["nvswitches"] = std::move(switches);
  out["sources"] = Sources(facts.sources);
  return out;
}

Json ToJson(const std::vector<DroppedGpu>& dropped) {
  Json out = Json::array();
  for (const auto& d : dropped) {
    Json one;
    one["bus_id"] = d.bus_id.empty() ? Json(nullptr) : Json(d.bus_id);
    one["reason"] = DropReasonName(d.reason);
    one["detail"] = d.detail;
    out.push_back(std::move(one));
  }
  return out;
}

}  // namespace gpudoctor
