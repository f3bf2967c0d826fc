// The kernel log line NVIDIA's driver prints for an Xid, made from the
// catalog, for `gpudoctor inject` (a drill of the whole chain: agent, alert,
// drain): "NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>,
// GPU has fallen off the bus." Pure.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

// kInvalid, one line, for a code NVIDIA's catalog does not list or a
// malformed bus id (PciBusIdProblem's words).
Result<std::string> XidKernelLine(int code, std::string_view gpu_bus_id);

}  // namespace gpudoctor
