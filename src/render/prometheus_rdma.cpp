#include "render/prometheus_rdma.h"

#include "knowledge/ib_counters.h"

namespace gpudoctor {

namespace {

std::string PortLabels(const RdmaDevice& d, const RdmaPort& p) {
  return PromLabel("device", d.name) + "," + PromLabel("port", std::to_string(p.port)) + "," +
         PromLabel("link_layer", p.link_layer);
}

}  // namespace

void WriteRdmaMetrics(const AgentLiveSnapshot& s, Exposition& e) {
  const auto& devices = s.rdma.devices;
  e.Family("gpudoctor_ib_port_state", "gauge",
           "RDMA port state code: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER");
  for (const auto& d : devices) {
    for (const auto& p : d.ports) {
      if (p.state) e.Sample(PortLabels(d, p), p.state->code);
    }
  }
  e.Family(
      "gpudoctor_ib_port_physical_state", "gauge",
      "RDMA port physical state code: 1 Sleep, 2 Polling, 3 Disabled, 4 PortConfigurationTraining, "
      "5 LinkUp, 6 LinkErrorRecovery, 7 PhyTest");
  for (const auto& d : devices) {
    for (const auto& p : d.ports) {
      if (p.phys_state) e.Sample(PortLabels(d, p), p.phys_state->code);
    }
  }
  e.Family("gpudoctor_ib_port_rate_gbps", "gauge", "RDMA port rate in Gb/s as the port trained");
  for (const auto& d : devices) {
    for (const auto& p : d.ports) {
      if (p.rate_gbps) e.Sample(PortLabels(d, p), *p.rate_gbps);
    }
  }
  e.Family("gpudoctor_ib_port_errors_total", "counter",
           "RDMA port error counters (counters/ and hw_counters/) as the kernel reports them");
  for (const auto& d : devices) {
    for (const auto& p : d.ports) {
      for (const auto& c : p.counters) {
        if (FindIbCounter(c.name).kind == IbCounterClass::kOther) continue;
        e.Sample(PortLabels(d, p) + "," + PromLabel("counter", c.name),
                 static_cast<double>(c.value));
      }
    }
  }
  e.Family("gpudoctor_ib_port_errors_saturated", "gauge",
           "1 for an RDMA error counter pinned at its maximum (its rate is unknown)");
  for (const auto& d : devices) {
    for (const auto& p : d.ports) {
      for (const auto& c : p.counters) {
        if (FindIbCounter(c.name).kind == IbCounterClass::kOther) continue;
        if (IbCounterSaturated(c.name, c.value))
          e.Sample(PortLabels(d, p) + "," + PromLabel("counter", c.name), 1);
      }
    }
  }
}

}  // namespace gpudoctor
