// Memory error counters of the kernel's EDAC drivers, per DIMM
// (facts/host.h EdacFacts): /sys/devices/system/edac/mc/mc*/dimm* (and rank*)
// with dimm_label, dimm_ce_count, dimm_ue_count; older drivers' csrow*/ch*
// files; each controller's ue_noinfo_count and seconds_since_reset. Read
// below ctx.root; never fails: no EDAC directory means no EDAC driver
// (virtual machines, or none loaded), said in `sources`.
#pragma once

#include "collect/collect_context.h"
#include "facts/host.h"

namespace gpudoctor {

EdacFacts ReadEdac(const CollectContext& ctx);

}  // namespace gpudoctor
