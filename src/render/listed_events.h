// The kernel events a report lists for people: each event once. The
// extractor adds a copy of some Xid events under the kind the rules read
// (Xid 79 -> fallen_off_bus "Xid 79", Xid 154 -> recovery_action, Xid 119
// RPC -> gsp_timeout); those copies are the same line and are left out here
// (the JSON `events` list keeps them: its consumers count by kind).
#pragma once

#include <vector>

#include "core/kernel_event.h"

namespace gpudoctor {

// `events` without the copies, in order; pointers into `events`.
std::vector<const KernelEvent*> ListedEvents(const std::vector<KernelEvent>& events);

}  // namespace gpudoctor
