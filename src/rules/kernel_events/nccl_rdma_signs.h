// The RDMA ports that had trouble around NCCL's failures, as evidence: what
// the NCCL rules (nccl.errors, nccl.network) use to point at the inter-node
// fabric. Pure.
#pragma once

#include <string_view>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"
#include "rules/kernel_events/event_util.h"

namespace gpudoctor::events {

// Each RDMA port of the input that went down or counted errors in the
// window of `nccl` (from 10 minutes before the first port reading, PyTorch's
// default watchdog timeout, to a minute after the last) becomes an evidence
// item naming the port, its trouble and `what` ("the NCCL timeout"); true
// when any did.
bool AddRdmaSignsNear(const DiagnosisInput& input, const EventList& nccl, std::string_view what,
                      Finding& f);

}  // namespace gpudoctor::events
