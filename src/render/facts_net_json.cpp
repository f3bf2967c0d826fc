#include "render/facts_net_json.h"

#include "knowledge/ib_counters.h"
#include "render/facts_json_util.h"

namespace gpudoctor {

using facts_json::OrNull;
using facts_json::Sources;
using Json = nlohmann::ordered_json;

namespace {

Json InterfaceJson(const NetInterfaceRates& r) {
  const NetInterface& n = r.interface;
  Json out;
  out["name"] = n.name;
  out["operstate"] = n.operstate;
  out["physical"] = n.physical;
  out["speed_mbps"] = OrNull(n.speed_mbps);
  out["mtu"] = OrNull(n.mtu);
  out["window_s"] = r.window_s;
  out["rx_bytes_per_s"] = OrNull(r.rx_bytes_per_s);
  out["tx_bytes_per_s"] = OrNull(r.tx_bytes_per_s);
  out["rx_mbps"] = OrNull(r.rx_mbps);
  out["tx_mbps"] = OrNull(r.tx_mbps);
  out["rx_errors_per_s"] = OrNull(r.rx_errors_per_s);
  out["tx_errors_per_s"] = OrNull(r.tx_errors_per_s);
  out["rx_dropped_per_s"] = OrNull(r.rx_dropped_per_s);
  out["tx_dropped_per_s"] = OrNull(r.tx_dropped_per_s);
  out["rx_bytes_total"] = OrNull(n.counters.rx_bytes);
  out["tx_bytes_total"] = OrNull(n.counters.tx_bytes);
  out["rx_errors_total"] = OrNull(n.counters.rx_errors);
  out["tx_errors_total"] = OrNull(n.counters.tx_errors);
  out["rx_dropped_total"] = OrNull(n.counters.rx_dropped);
  out["tx_dropped_total"] = OrNull(n.counters.tx_dropped);
  out["sources"] = Sources(n.sources);
  return out;
}

Json PortJson(const RdmaPort& p) {
  Json out;
  out["port"] = p.port;
  out["state"] = p.state ? Json(p.state->name) : Json(nullptr);
  out["state_code"] = p.state ? Json(p.state->code) : Json(nullptr);
  out["phys_state"] = p.phys_state ? Json(p.phys_state->name) : Json(nullptr);
  out["phys_state_code"] = p.phys_state ? Json(p.phys_state->code) : Json(nullptr);
  out["active"] = p.active;
  out["rate_gbps"] = OrNull(p.rate_gbps);
  out["rate_text"] = p.rate_text;
  out["link_layer"] = p.link_layer;
  out["roce"] = p.roce;
  Json counters = Json::object();
  Json hw_counters = Json::object();
  Json saturated = Json::array();
  for (const RdmaCounter& c : p.counters) {
    (c.hw ? hw_counters : counters)[c.name] = c.value;
    if (!c.hw && IbCounterSaturated(c.name, c.value)) saturated.push_back(c.name);
  }
  out["counters"] = std::move(counters);
  out["hw_counters"] = std::move(hw_counters);
  out["saturated_counters"] = std::move(saturated);
  out["sources"] = Sources(p.sources);
  return out;
}

}  // namespace

Json ToJson(const PingResult& r) {
  Json out;
  out["target"] = r.target;
  out["address"] = r.address;
  out["method"] = PingMethodName(r.method);
  out["available"] = r.available;
  if (!r.available) out["why"] = r.why;
  out["sent"] = r.stats.sent;
  out["received"] = r.stats.received;
  out["loss_percent"] = OrNull(r.stats.loss_percent);
  out["min_ms"] = OrNull(r.stats.min_ms);
  out["avg_ms"] = OrNull(r.stats.avg_ms);
  out["max_ms"] = OrNull(r.stats.max_ms);
  out["stddev_ms"] = OrNull(r.stats.stddev_ms);
  out["notes"] = r.notes;
  return out;
}

Json ToJson(const NetFacts& facts) {
  Json out;
  Json interfaces = Json::array();
  for (const auto& r : facts.interfaces) interfaces.push_back(InterfaceJson(r));
  out["interfaces"] = std::move(interfaces);
  Json devices = Json::array();
  for (const auto& d : facts.rdma.devices) {
    Json dev;
    dev["name"] = d.name;
    dev["fw_version"] = d.fw_version;
    dev["hca_type"] = d.hca_type;
    dev["pci_bus_id"] = d.pci_bus_id.empty() ? Json(nullptr) : Json(d.pci_bus_id);
    dev["numa_node"] = OrNull(d.numa_node);
    dev["nearest_gpus"] = d.nearest_gpus;
    Json ports = Json::array();
    for (const auto& p : d.ports) ports.push_back(PortJson(p));
    dev["ports"] = std::move(ports);
    devices.push_back(std::move(dev));
  }
  Json rdma;
  rdma["devices"] = std::move(devices);
  rdma["sources"] = Sources(facts.rdma.sources);
  out["rdma"] = std::move(rdma);
  Json pings = Json::array();
  for (const auto& p : facts.pings) pings.push_back(ToJson(p));
  out["pings"] = std::move(pings);
  out["sources"] = Sources(facts.sources);
  return out;
}

}  // namespace gpudoctor
