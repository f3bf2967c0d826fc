// The RDMA port series of /metrics, one per InfiniBand / RoCE port of the
// agent's latest reading, labelled device, port and link_layer:
// gpudoctor_ib_port_state (the port state code: 1 DOWN, 2 INIT, 3 ARMED, 4
// ACTIVE), gpudoctor_ib_port_physical_state (2 Polling, 3 Disabled, 5
// LinkUp, ...), gpudoctor_ib_port_rate_gbps, and
// gpudoctor_ib_port_errors_total{counter} for the error counters the rules
// judge (knowledge/ib_counters.h), as the kernel reports them: cleared
// counters reset the series, and an IBTA counter pinned at its maximum stays
// there (gpudoctor_ib_port_errors_saturated says which).
#pragma once

#include "render/agent_snapshot.h"
#include "render/exposition.h"

namespace gpudoctor {

void WriteRdmaMetrics(const AgentLiveSnapshot& s, Exposition& e);

}  // namespace gpudoctor
