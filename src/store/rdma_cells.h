// The RDMA ports of one reading (facts/network.h) as named cells, one row per
// reading of every port, and back. Port columns are "<dev>/<port>.<member>":
// state, state_name, phys, phys_name, rate (Gb/s), rate_text, link_layer,
// c.<counter> (counters/) and hw.<counter> (hw_counters/); device columns are
// "<dev>:<member>": fw, hca, pci, numa, near (the nearest GPUs' bus ids,
// comma-separated). Counters are 64-bit values kept bit for bit. Unknown
// names are ignored when decoding. What could not be read (sources) is not
// kept. Pure.
#pragma once

#include <vector>

#include "facts/network.h"
#include "store/chunk_codec.h"

namespace gpudoctor {

void RdmaToCells(const RdmaFacts& facts, std::vector<NamedCell>& cells);

// Every row of a set as a reading (read_at: the row's time), in row order;
// devices and ports in the order their columns first appear, each port's
// counters by name, counters/ before hw_counters/.
std::vector<RdmaFacts> DecodeRdmaReadings(const ColumnSet& set);

}  // namespace gpudoctor

namespace gpudoctor {

// At most about 2 x max_readings of `readings` (oldest first), in order: the
// first and the last, each reading in which some port's state differs from
// the reading before (and that one), up to max_readings of those, and evenly
// spaced ones. Counters are cumulative, so the kept readings still give each
// counter's rise; the state changes give every flap and drop. Unchanged when
// there are at most max_readings.
std::vector<RdmaFacts> ThinRdmaReadings(std::vector<RdmaFacts> readings, std::size_t max_readings);

}  // namespace gpudoctor
